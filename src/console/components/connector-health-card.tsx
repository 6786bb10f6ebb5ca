import type { ConnectorHealth } from '../api-types';
import { formatTime } from '../format';
import type { ConnectorNumbers } from '../prometheus-text';
import { to } from '../routes';
import { ConnectorNumbersTable } from './connector-numbers';
import { CredentialExpiry } from './credential-expiry';
import { StatusBadge } from './status-badge';

/** "ok", "failed", or "never" with what would run it. */
function Last({
  at,
  ok,
  text,
  code,
  never,
}: {
  at?: string;
  ok?: boolean;
  text?: string;
  code?: string;
  never: string;
}) {
  if (at === undefined) return <span class="muted">{never}</span>;
  return (
    <>
      <StatusBadge status={ok === true ? 'ok' : 'failed'} />{' '}
      <time dateTime={at}>{formatTime(at)}</time>
      {code === undefined ? null : (
        <>
          {' '}
          <code>{code}</code>
        </>
      )}
      {text === undefined ? null : <span class="muted"> {text}</span>}
    </>
  );
}

/** One connector on the Health page: its last known state, and its numbers where served. */
export function ConnectorHealthCard({
  connector,
  numbers,
}: {
  connector: ConnectorHealth;
  numbers: ConnectorNumbers | undefined;
}) {
  const check = connector.lastStatusCheck;
  const imported = connector.lastImport;
  const reconciled = connector.lastReconciliation;
  return (
    <li class="card">
      <h2>
        <a href={to.connector(connector.name)}>{connector.name}</a>
      </h2>
      <p class="muted">kind {connector.kind}</p>
      <dl class="facts">
        {connector.quarantine?.state === 'quarantined' ? (
          <div>
            <dt>Quarantine</dt>
            <dd>
              <StatusBadge status="quarantined" /> since{' '}
              <time dateTime={connector.quarantine.since}>
                {formatTime(connector.quarantine.since ?? '')}
              </time>{' '}
              <code>{connector.quarantine.reason?.code}</code>
              <span class="muted"> {connector.quarantine.heldRequests} request(s) held</span>
            </dd>
          </div>
        ) : connector.quarantine?.releasedAt === undefined ? null : (
          <div>
            <dt>Last quarantine</dt>
            <dd>
              ended{' '}
              <time dateTime={connector.quarantine.releasedAt}>
                {formatTime(connector.quarantine.releasedAt)}
              </time>
              ,{' '}
              {connector.quarantine.releasedBy !== 'operator'
                ? 'released by its probe'
                : `released by ${connector.quarantine.releasedByName ?? 'an operator'}`}
            </dd>
          </div>
        )}
        <div>
          <dt>Last status check</dt>
          <dd>
            <Last
              never="none yet: run one on the connector's page"
              {...(check === undefined
                ? {}
                : {
                    at: check.at,
                    ok: check.ok,
                    text: check.summary,
                    ...(check.error === undefined ? {} : { code: check.error.code }),
                  })}
            />
          </dd>
        </div>
        <div>
          <dt>Last import</dt>
          <dd>
            <Last
              never="none yet"
              {...(imported === undefined
                ? {}
                : {
                    at: imported.at,
                    ok: imported.ok,
                    text: imported.ok
                      ? `${imported.mode ?? ''} · ${imported.groups ?? 0} groups`
                      : imported.error?.message,
                    ...(imported.error === undefined ? {} : { code: imported.error.code }),
                  })}
            />
          </dd>
        </div>
        <div>
          <dt>Last reconciliation</dt>
          <dd>
            <Last
              never="none yet"
              {...(reconciled === undefined
                ? {}
                : {
                    at: reconciled.at,
                    ok: reconciled.ok,
                    text: reconciled.ok
                      ? `${reconciled.mode ?? ''} · ${reconciled.found ?? 0} new findings · ${reconciled.open ?? 0} open`
                      : reconciled.error?.message,
                    ...(reconciled.error === undefined ? {} : { code: reconciled.error.code }),
                  })}
            />
          </dd>
        </div>
        {connector.userGroups?.verdict === 'cut' ? (
          <div>
            <dt>Users' groups</dt>
            <dd>
              not believed for a non-membership since{' '}
              <time dateTime={connector.userGroups.at}>{formatTime(connector.userGroups.at)}</time>:{' '}
              {connector.userGroups.why}
              <span class="muted"> (a compatibility run that finds them complete ends it)</span>
            </dd>
          </div>
        ) : null}
        {connector.expiringCredential ? (
          <div>
            <dt>Client secret</dt>
            <dd>
              <CredentialExpiry credential={connector.credential} />
            </dd>
          </div>
        ) : null}
      </dl>
      {numbers === undefined ? null : (
        <ConnectorNumbersTable connector={connector.name} numbers={numbers} />
      )}
    </li>
  );
}
