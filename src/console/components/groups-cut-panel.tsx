import { useApp } from '../app-context';
import type { ConnectorHealth, HealthReport } from '../api-types';
import { formatTime } from '../format';
import { useResource } from '../use-resource';
import { ErrorPanel } from './error-panel';
import { ReasonAction } from './reason-action';

type Verdict = NonNullable<ConnectorHealth['userGroups']>;

function At({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatTime(iso)}</time>;
}

/** Who a kept verdict is by, in words. */
function by(verdict: Verdict): string {
  if (verdict.by === 'operator') return `ended by ${verdict.byName ?? 'an operator'}`;
  return verdict.by === 'compatibility run' ? 'found by a compatibility run' : 'caught by a read';
}

/**
 * A SCIM connector's kept verdict on its server's user `groups` attribute (from the health
 * report) and, while it is `cut`, the operator's end of it once the server is mended
 * (`POST .../user-groups/end-cut` with a reason): the service ends it only on a compatibility
 * run that found the attribute complete after the cut, and its refusal says what is missing.
 */
export function GroupsCutPanel({ connector }: { connector: string }) {
  const { api } = useApp();
  const health = useResource(() => api.get<HealthReport>('health'), [connector]);
  const verdict = health.data?.connectors.find((c) => c.name === connector)?.userGroups;
  const end = async (reason: string) => {
    await api.post(`connectors/${encodeURIComponent(connector)}/user-groups/end-cut`, { reason });
    health.reload();
  };
  return (
    <section aria-labelledby="groups-cut-heading">
      <h2 id="groups-cut-heading">User groups attribute</h2>
      <ErrorPanel error={health.error} title="The health report could not be read" />
      {verdict === undefined ? (
        health.loading ? null : (
          <p class="muted">Nothing is known yet of the server's user groups attribute.</p>
        )
      ) : (
        <p>
          <strong>
            {verdict.verdict === 'cut' ? 'Cut: its silence is not believed' : 'Complete'}
          </strong>{' '}
          ({by(verdict)}, <At iso={verdict.endedAt ?? verdict.at} />
          ): <span class="muted">{verdict.why}</span>
        </p>
      )}
      {verdict?.verdict !== 'cut' ? null : (
        <ReasonAction
          id="groups-cut-reason"
          label="Why the server is mended (kept with the end)"
          action="End the cut"
          busy="Ending…"
          denied="Ending it needs the app role Provisioning.Operator."
          failed="The cut was not ended"
          hint={
            <span class="muted">
              Only on a compatibility run that found the attribute complete after the cut.
            </span>
          }
          run={end}
        />
      )}
    </section>
  );
}
