import type { DriftRestoreAnswer, DriftRestorePreview } from '../api-types';
import { to } from '../routes';
import { Notices } from './notices';
import { StatusBadge } from './status-badge';

/** What a reconciliation job's result says, as the Drift page shows it. */
export interface ReconciliationSummary {
  complete?: boolean;
  incomplete?: string[];
  found?: Record<string, number>;
  closed?: number;
  notChecked?: { account: string; why: string }[];
}

/** A finished reconciliation: new and closed findings, and what it could not judge. */
export function ReconciliationOutcome({ result }: { result: ReconciliationSummary | undefined }) {
  if (result === undefined) return null;
  const found = Object.values(result.found ?? {}).reduce((sum, n) => sum + n, 0);
  const unjudged = [
    ...(result.incomplete ?? []),
    ...(result.notChecked ?? []).map((n) => `${n.account} not checked: ${n.why}`),
  ];
  return (
    <>
      <p>
        {found} new finding(s), {result.closed ?? 0} closed.
        {result.complete === false ? ' Incomplete: what could not be read was not judged.' : ''}
      </p>
      {unjudged.length === 0 ? null : (
        <ul class="notices">
          {unjudged.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * What a restore did, account by account: the requests it started, each linked, and whether
 * its findings carry it (only what the API read back is said to be marked; where it is not,
 * its notice says why and what to do); the accounts whose restore could not start, with the
 * error; and the findings left as they are, with the reason.
 */
export function RestoresStarted({ answer }: { answer: DriftRestoreAnswer }) {
  const failed = answer.failed ?? [];
  return (
    <section aria-label="Restores started">
      <p>
        {answer.restores.length} restore request(s) started; they run and are verified as any
        request.
      </p>
      <ul>
        {answer.restores.map((r) => (
          <li key={r.requestId}>
            {r.accountId}: <a href={to.request(r.requestId)}>{r.requestId}</a>
            {r.alreadyRunning === true ? ' (already running)' : ''}
            {r.alreadyEnded === undefined
              ? ''
              : ` (ran before and ended ${r.alreadyEnded.status}: nothing started now${r.alreadyEnded.status === 'succeeded' ? '' : '; send the restore again to run it anew'})`}
            {r.marked === true ? (
              <span class="muted"> findings marked with it</span>
            ) : (
              <>
                {' '}
                <StatusBadge status="findings not marked" />
                {r.notice === undefined ? null : (
                  <Notices notices={[r.notice]} label="Restore notice" />
                )}
              </>
            )}
          </li>
        ))}
      </ul>
      {failed.length === 0 ? null : (
        <div role="alert" aria-label="Restores not started">
          <p>
            {failed.length} account(s) not restored: their request could not start (the requests
            above run all the same).
          </p>
          <ul>
            {failed.map((f) => (
              <li key={f.accountId}>
                {f.accountId}: <StatusBadge status="not started" /> <code>{f.error.code}</code>{' '}
                {f.error.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <SkippedFindings skipped={answer.skipped} />
    </section>
  );
}

/** Findings a restore or its preview left as they are, each with the reason. */
function SkippedFindings({ skipped }: { skipped: { findingId: string; reason: string }[] }) {
  if (skipped.length === 0) return null;
  return (
    <>
      <p>{skipped.length} finding(s) left as they are:</p>
      <ul aria-label="Findings left as they are">
        {skipped.map((s) => (
          <li key={s.findingId}>
            <code>{s.findingId}</code>: {s.reason}
          </li>
        ))}
      </ul>
    </>
  );
}

/** A restore's preview: per account, whether its request would succeed and what it would change. */
export function RestorePreview({ preview }: { preview: DriftRestorePreview }) {
  return (
    <section class="plan" aria-label="Restore preview">
      <p>Preview: nothing was written. As the target reads now, the restore would:</p>
      <ul>
        {preview.restores.map(({ accountId, plan }) => {
          const changes = plan.steps.flatMap((step) =>
            step.changes.map(
              (c) => `${c.change}${c.groupName === undefined ? '' : ` ${c.groupName}`}`,
            ),
          );
          const errors = plan.steps.flatMap((step) =>
            step.error === undefined ? [] : [step.error.message],
          );
          return (
            <li key={accountId}>
              {accountId}:{' '}
              <StatusBadge status={plan.status === 'succeeded' ? 'would succeed' : 'would fail'} />{' '}
              {[...changes, ...errors].join('; ') || 'nothing to change'}
            </li>
          );
        })}
      </ul>
      <SkippedFindings skipped={preview.skipped} />
    </section>
  );
}
