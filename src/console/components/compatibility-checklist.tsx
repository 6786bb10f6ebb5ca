import type { CompatibilityReport, HttpExchange, SettingValue } from '../api-types';
import { asText, formatTime } from '../format';
import { ExtraFields } from './extra-fields';
import { ScrollTable } from './scroll-table';
import { StatusBadge } from './status-badge';

const settings = (values: readonly SettingValue[] | undefined) =>
  (values ?? []).map((value) => `${value.setting}: ${value.value}`).join(', ');

function Evidence({ exchanges }: { exchanges: readonly HttpExchange[] }) {
  if (exchanges.length === 0) return null;
  return (
    <details class="evidence">
      <summary>Evidence: {exchanges.length} exchange(s)</summary>
      <ol>
        {exchanges.map((exchange, index) => (
          <li key={index}>
            <pre>
              {`> ${exchange.request}${exchange.requestBody === undefined ? '' : `\n${exchange.requestBody}`}\n< ${exchange.status} ${exchange.answer}`}
            </pre>
          </li>
        ))}
      </ol>
    </details>
  );
}

function SuggestedSettings({ report }: { report: CompatibilityReport }) {
  const suggested = report.suggestedSettings ?? [];
  if (suggested.length === 0) return null;
  return (
    <ScrollTable label="Suggested settings" caption="Suggested settings">
      <thead>
        <tr>
          <th scope="col">Setting</th>
          <th scope="col">Value</th>
          <th scope="col">Point</th>
          <th scope="col">Tried</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {suggested.map((setting) => (
          <tr key={`${setting.setting}=${setting.value}`}>
            <th scope="row">
              <code>{setting.setting}</code>
            </th>
            <td>
              <code>{setting.value}</code>
            </td>
            <td>{setting.point}</td>
            <td>{setting.tried ? 'yes: seen to work' : 'no: could not be tried'}</td>
            <td>{setting.reason}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}

function Actions({ report }: { report: CompatibilityReport }) {
  const actions = report.actions ?? [];
  if (actions.length === 0) return null;
  return (
    <ScrollTable label="What will work" caption="What will work on this server">
      <thead>
        <tr>
          <th scope="col">Action</th>
          <th scope="col">Outcome</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {actions.map((action) => (
          <tr key={action.action}>
            <th scope="row">{action.action}</th>
            <td>
              <StatusBadge status={action.outcome} />
            </td>
            <td>
              {action.reason}
              {action.point === undefined ? '' : ` (point ${action.point})`}
              {action.needs === undefined || action.needs.length === 0
                ? ''
                : `; needs ${settings(action.needs)}`}
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}

interface RunStep {
  name: string;
  outcome: string;
  detail: string;
}

/**
 * Whether the user's `groups` attribute listed the membership the run made (SCIM), with the
 * reads behind it; where verdicts lean on it, the summary above says what it costs.
 */
function UserGroups({ report }: { report: CompatibilityReport }) {
  const finding = report.userGroups;
  if (finding === undefined) return null;
  return (
    <div>
      The user's groups attribute: <StatusBadge status={finding.outcome} /> {finding.note}
      <Evidence exchanges={finding.evidence} />
    </div>
  );
}

/** The test account, what the run did step by step, and how it cleaned up. */
function RunDetails({ report }: { report: CompatibilityReport }) {
  const steps = Array.isArray(report.steps) ? (report.steps as RunStep[]) : [];
  const leftBehind = Array.isArray(report.leftBehind) ? (report.leftBehind as unknown[]) : [];
  return (
    <>
      {typeof report.testAccount === 'string' ? (
        <p class="muted">
          Test account <code>{report.testAccount}</code>
          {typeof report.baseUrl === 'string' ? (
            <>
              {' '}
              at <code>{report.baseUrl}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {steps.length === 0 ? null : (
        <details>
          <summary>Steps of the run ({steps.length})</summary>
          <ul>
            {steps.map((step, index) => (
              <li key={index}>
                <StatusBadge status={step.outcome} /> {step.name}
                {step.detail === '' ? '' : `: ${step.detail}`}
              </li>
            ))}
          </ul>
        </details>
      )}
      {typeof report.cleanup === 'string' ? <p>Cleanup: {report.cleanup}</p> : null}
      {leftBehind.length === 0 ? null : (
        <p class="error-panel">
          Left behind on the server: {leftBehind.map((item) => asText(item)).join(', ')}
        </p>
      )}
    </>
  );
}

/**
 * A compatibility run as a checklist of the spec's six points, each with its verdict, why,
 * what to do, and the requests and answers it rests on; then the settings the run suggests
 * and which of the service's actions will work.
 */
export function CompatibilityChecklist({ report }: { report: CompatibilityReport }) {
  return (
    <section class="compatibility" aria-label="Compatibility checklist">
      {report.verdict === undefined ? null : (
        <p>
          <StatusBadge status={report.verdict} /> {report.summary}
          {report.at === undefined ? null : (
            <span class="muted">
              {' '}
              (run <time dateTime={report.at}>{formatTime(report.at)}</time>)
            </span>
          )}
        </p>
      )}
      {report.evidenceDropped === true ? (
        <p class="notice">The evidence was too large to keep with this result.</p>
      ) : null}
      <ol class="checklist">
        {report.points.map((point) => (
          <li key={point.number}>
            <div class="checklist-head">
              <span>
                {point.number}. {point.title}
              </span>
              <StatusBadge status={point.outcome} />
            </div>
            {point.reason === undefined ? null : <p class="point-reason">{point.reason}</p>}
            {point.fitsWith === undefined || point.fitsWith.length === 0 ? null : (
              <p>
                Fits with <code>{settings(point.fitsWith)}</code>
              </p>
            )}
            {point.advice === undefined ? null : <p class="notice">{point.advice}</p>}
            <ul>
              {point.checks.map((check, index) => (
                <li key={index}>
                  <span aria-hidden="true">
                    {check.holds === true ? '+ ' : check.holds === false ? '− ' : '? '}
                  </span>
                  <span class="visually-hidden">
                    {check.holds === true
                      ? 'holds: '
                      : check.holds === false
                        ? 'fails: '
                        : 'not seen: '}
                  </span>
                  {check.aspect === undefined ? null : <strong>{check.aspect}: </strong>}
                  {check.note}
                  {check.withSetting === undefined ? null : (
                    <span class="muted"> (with {settings([check.withSetting])})</span>
                  )}
                  <Evidence exchanges={check.evidence} />
                </li>
              ))}
            </ul>
            <ExtraFields
              value={point}
              known={['number', 'title', 'outcome', 'reason', 'advice', 'fitsWith', 'checks']}
            />
          </li>
        ))}
      </ol>
      <SuggestedSettings report={report} />
      <Actions report={report} />
      <UserGroups report={report} />
      <RunDetails report={report} />
      <ExtraFields
        value={report}
        known={[
          'connector',
          'at',
          'jobId',
          'verdict',
          'summary',
          'points',
          'suggestedSettings',
          'actions',
          'judgedSettings',
          'evidenceDropped',
          'testAccount',
          'baseUrl',
          'steps',
          'cleanup',
          'leftBehind',
          'fits',
          'userGroups',
        ]}
      />
    </section>
  );
}
