import { useApp } from '../app-context';
import type { RequestView } from '../api-types';
import { ErrorPanel } from '../components/error-panel';
import { ExtraFields } from '../components/extra-fields';
import type { RequestHold } from '../api-types';
import { Notices } from '../components/notices';
import { PageHeading } from '../components/page-heading';
import { StatusBadge } from '../components/status-badge';
import { StepTimeline } from '../components/step-timeline';
import { AccountLinkPanel } from '../components/account-link-panel';
import { formatDuration, formatTime } from '../format';
import { to } from '../routes';
import { usePolling, useResource } from '../use-resource';

const KNOWN = [
  'requestId',
  'requestedBy',
  'reason',
  'correlationId',
  'submittedBy',
  'connector',
  'accountId',
  'status',
  'steps',
  'notices',
  'startedAt',
  'finishedAt',
  'runtimeStatus',
  'hold',
];

const CONTEXT = [
  ['requestedBy', 'Requested by'],
  ['correlationId', 'Correlation ID'],
  ['reason', 'Reason'],
  ['submittedBy', 'Submitted by'],
] as const;

/**
 * Why the request waits: its connector is quarantined (it goes on when it is released), or
 * its target throttles (it runs the step again when the target asked).
 */
function HoldNotice({ connector, hold }: { connector: string; hold: RequestHold }) {
  if (hold.quarantinedSince === undefined) {
    return (
      <p class="notice" role="status">
        <StatusBadge status="held" /> Held since{' '}
        <time dateTime={hold.since}>{formatTime(hold.since)}</time>: the request{' '}
        {hold.reason.message} (connector <a href={to.connector(connector)}>{connector}</a>) at{' '}
        <time dateTime={hold.nextCheckAt}>{formatTime(hold.nextCheckAt)}</time>.
      </p>
    );
  }
  return (
    <p class="notice" role="status">
      <StatusBadge status="held" /> Held since{' '}
      <time dateTime={hold.since}>{formatTime(hold.since)}</time>: connector{' '}
      <a href={to.connector(connector)}>{connector}</a> is quarantined since{' '}
      <time dateTime={hold.quarantinedSince}>{formatTime(hold.quarantinedSince)}</time> (
      <code>{hold.reason.code}</code> {hold.reason.message}). The request goes on by itself when the
      connector is released; it looks again at{' '}
      <time dateTime={hold.nextCheckAt}>{formatTime(hold.nextCheckAt)}</time>.
    </p>
  );
}

/** How often a request that has not ended is read again. */
const LIVE_MS = 1000;

/** One request: its steps as a timeline, read again every second until the request ends. */
export function RequestPage({ requestId }: { requestId: string }) {
  const { api } = useApp();
  const request = useResource(
    () => api.get<RequestView>(`requests/${encodeURIComponent(requestId)}`),
    [requestId],
  );
  const view = request.data;
  const live =
    view === undefined
      ? request.error === undefined
      : view.status === 'pending' || view.status === 'running';
  usePolling(request.reload, LIVE_MS, live && view !== undefined);
  return (
    <>
      <PageHeading title={`Request ${requestId}`} />
      <ErrorPanel error={request.error} />
      {view === undefined ? (
        request.loading ? (
          <p>Loading the request…</p>
        ) : null
      ) : (
        <>
          <section class="summary" aria-label="Request">
            <dl class="facts">
              <div>
                <dt>Status</dt>
                <dd aria-live="polite" aria-atomic="true">
                  <StatusBadge status={view.hold === undefined ? view.status : 'held'} />
                  {live ? <span class="muted"> updating live</span> : null}
                </dd>
              </div>
              <div>
                <dt>Connector</dt>
                <dd>
                  <a href={to.connector(view.connector)}>{view.connector}</a>
                </dd>
              </div>
              <div>
                <dt>Account</dt>
                <dd>
                  <a href={to.account(view.connector, view.accountId)}>{view.accountId}</a>
                </dd>
              </div>
              {CONTEXT.map(([field, label]) =>
                view[field] === undefined ? null : (
                  <div key={field}>
                    <dt>{label}</dt>
                    <dd>{view[field]}</dd>
                  </div>
                ),
              )}
              {view.startedAt === undefined ? null : (
                <div>
                  <dt>Started</dt>
                  <dd>
                    <time dateTime={view.startedAt}>{formatTime(view.startedAt)}</time>
                  </dd>
                </div>
              )}
              {view.finishedAt === undefined ? null : (
                <div>
                  <dt>Ended</dt>
                  <dd>
                    <time dateTime={view.finishedAt}>{formatTime(view.finishedAt)}</time>
                    {view.startedAt === undefined
                      ? ''
                      : ` (${formatDuration(view.startedAt, view.finishedAt)})`}
                  </dd>
                </div>
              )}
            </dl>
            <ExtraFields value={view} known={KNOWN} />
            <Notices notices={view.notices} label="Notices about this request" />
          </section>
          {view.hold === undefined ? null : (
            <HoldNotice connector={view.connector} hold={view.hold} />
          )}
          <h2>Steps</h2>
          <StepTimeline steps={view.steps} />
          <AccountLinkPanel
            connector={view.connector}
            accountId={view.accountId}
            steps={view.steps}
          />
          <p>
            <a href={to.journal({ connector: view.connector, accountId: view.accountId })}>
              Journal of this account
            </a>
          </p>
        </>
      )}
    </>
  );
}
