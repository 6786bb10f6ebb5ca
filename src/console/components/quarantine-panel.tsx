import type { Quarantine } from '../api-types';
import { formatTime } from '../format';
import { to } from '../routes';
import { StatusBadge } from './status-badge';

function At({ iso }: { iso: string | undefined }) {
  return iso === undefined ? null : <time dateTime={iso}>{formatTime(iso)}</time>;
}

/**
 * A connector's quarantine as an operator needs it: since when and why, the latest failure,
 * the probes and the next one, the requests held (they go on by themselves when a probe
 * succeeds), and the last release. The release button is the page's: it needs the role.
 */
export function QuarantinePanel({ quarantine }: { quarantine: Quarantine }) {
  if (quarantine.state === 'active') {
    return (
      <p>
        <StatusBadge status="active" /> Requests run.
        {quarantine.releasedAt === undefined ? null : (
          <span class="muted">
            {' '}
            Last quarantine ended <At iso={quarantine.releasedAt} />
            {quarantine.releasedBy !== 'operator'
              ? ', released by a probe that succeeded'
              : quarantine.releasedByName === undefined
                ? ', released by an operator'
                : `, released by ${quarantine.releasedByName}`}
            .
          </span>
        )}
      </p>
    );
  }
  return (
    <div role="group" aria-label="Quarantine">
      <p>
        <StatusBadge status="quarantined" /> since <At iso={quarantine.since} />: its requests are
        held, not failed, and go on by themselves when a probe finds the target working again.
      </p>
      <dl class="facts">
        {quarantine.reason === undefined ? null : (
          <div>
            <dt>Why</dt>
            <dd>
              <code>{quarantine.reason.code}</code> {quarantine.reason.message}
            </dd>
          </div>
        )}
        {quarantine.lastError === undefined ||
        (quarantine.lastError.code === quarantine.reason?.code &&
          quarantine.lastError.message === quarantine.reason.message) ? null : (
          <div>
            <dt>Latest failure</dt>
            <dd>
              <code>{quarantine.lastError.code}</code> {quarantine.lastError.message}{' '}
              <span class="muted">
                <At iso={quarantine.lastError.at} />
              </span>
            </dd>
          </div>
        )}
        <div>
          <dt>Probes</dt>
          <dd>
            {quarantine.probes ?? 0}
            {quarantine.lastProbeAt === undefined ? null : (
              <>
                , last <At iso={quarantine.lastProbeAt} />
              </>
            )}
            {quarantine.nextProbeAt === undefined ? null : (
              <>
                ; next <At iso={quarantine.nextProbeAt} />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Held requests</dt>
          <dd>{quarantine.heldRequests}</dd>
        </div>
      </dl>
      {quarantine.held === undefined || quarantine.held.length === 0 ? null : (
        <ul class="held" aria-label="Held requests">
          {quarantine.held.map((held) => (
            <li key={held.requestId}>
              <a href={to.request(held.requestId)}>{held.requestId}</a>{' '}
              <span class="muted">
                held since <At iso={held.since} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
