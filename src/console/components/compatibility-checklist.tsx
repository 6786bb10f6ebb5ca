import type { CompatibilityReport, HttpExchange } from '../api-types';
import { ExtraFields } from './extra-fields';
import { StatusBadge } from './status-badge';

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

/**
 * The SCIM compatibility run as a checklist of the spec's six points, each with its verdict
 * and the requests and answers it rests on.
 */
export function CompatibilityChecklist({ report }: { report: CompatibilityReport }) {
  return (
    <section class="compatibility" aria-label="Compatibility checklist">
      {report.testAccount === undefined ? null : (
        <p class="muted">
          Test account <code>{report.testAccount}</code>
          {report.baseUrl === undefined ? null : (
            <>
              {' '}
              at <code>{report.baseUrl}</code>
            </>
          )}
        </p>
      )}
      <ol class="checklist">
        {report.points.map((point) => (
          <li key={point.number}>
            <div class="checklist-head">
              <span>
                {point.number}. {point.title}
              </span>
              <StatusBadge status={point.outcome} />
            </div>
            <ul>
              {point.checks.map((check, index) => (
                <li key={index}>
                  <span aria-hidden="true">
                    {check.holds === true ? '+ ' : check.holds === false ? '− ' : '? '}
                  </span>
                  {check.note}
                  <Evidence exchanges={check.evidence} />
                </li>
              ))}
            </ul>
            <ExtraFields value={point} known={['number', 'title', 'outcome', 'checks']} />
          </li>
        ))}
      </ol>
      {report.steps === undefined ? null : (
        <details>
          <summary>Steps of the run</summary>
          <ul>
            {report.steps.map((step, index) => (
              <li key={index}>
                <StatusBadge status={step.outcome} /> {step.name}
                {step.detail === '' ? '' : `: ${step.detail}`}
              </li>
            ))}
          </ul>
        </details>
      )}
      {report.cleanup === undefined ? null : <p>Cleanup: {report.cleanup}</p>}
      <ExtraFields
        value={report}
        known={[
          'connector',
          'baseUrl',
          'testAccount',
          'group',
          'points',
          'steps',
          'cleanup',
          'fits',
        ]}
      />
    </section>
  );
}
