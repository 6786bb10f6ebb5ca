import { useApp } from '../app-context';
import type { AccountView, ConnectorInfo, GroupLink, JournalPage } from '../api-types';
import { ErrorPanel } from '../components/error-panel';
import { ExtraFields } from '../components/extra-fields';
import { Notices } from '../components/notices';
import { PageHeading } from '../components/page-heading';
import { ScrollTable } from '../components/scroll-table';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format';
import { to } from '../routes';
import { useResource } from '../use-resource';

/** Journal entries read for "recent": the journal pages oldest first, so the last ones are read. */
const RECENT_DAYS = 90;
const RECENT_SHOWN = 15;

function GroupName({ group, connector }: { group: GroupLink; connector?: ConnectorInfo }) {
  return connector?.features.groupStructure === true ? (
    <a href={to.structure(connector.name, group.id)}>{group.displayName}</a>
  ) : (
    <>{group.displayName}</>
  );
}

function LastLogon({ view }: { view: AccountView }) {
  const lastLogon = view.lastLogon;
  if (lastLogon === undefined) return <>not available</>;
  if (lastLogon.status === 'found') {
    return (
      <>
        <time dateTime={lastLogon.value}>{formatTime(lastLogon.value)}</time>
        {lastLogon.detail === undefined ? null : (
          <span class="muted"> (from {lastLogon.detail})</span>
        )}
      </>
    );
  }
  return (
    <>
      {lastLogon.status}
      {lastLogon.detail === undefined ? null : <span class="muted"> ({lastLogon.detail})</span>}
    </>
  );
}

/** The newest journal entries of the account (newest first). */
async function recentEntries(
  get: (path: string, query: Record<string, string | number | undefined>) => Promise<JournalPage>,
  connector: string,
  accountId: string,
) {
  const from = new Date(Date.now() - RECENT_DAYS * 86_400_000).toISOString();
  let entries: JournalPage['entries'] = [];
  let continuationToken: string | undefined;
  for (let page = 0; page < 5; page++) {
    const answer = await get('journal', {
      connector,
      accountId,
      from,
      limit: 1000,
      continuationToken,
    });
    entries = [...entries, ...answer.entries].slice(-RECENT_SHOWN);
    continuationToken = answer.continuationToken;
    if (continuationToken === undefined) break;
  }
  return entries.reverse();
}

/**
 * An account on its target: enabled, last logon, direct memberships and, where groups nest,
 * the section "Effective inherited memberships" with the path that grants each group.
 */
export function AccountPage({ connector, accountId }: { connector: string; accountId: string }) {
  const { api, connectors } = useApp();
  const info = connectors.find((c) => c.name === connector);
  const account = useResource(
    () =>
      api.get<AccountView>(
        `connectors/${encodeURIComponent(connector)}/accounts/${encodeURIComponent(accountId)}`,
      ),
    [connector, accountId],
  );
  const journal = useResource(
    () => recentEntries((path, query) => api.get<JournalPage>(path, query), connector, accountId),
    [connector, accountId],
  );
  const view = account.data;
  return (
    <>
      <PageHeading title={`Account ${accountId}`}>
        <a class="button" href={to.newRequest({ connector, accountId })}>
          New request for this account
        </a>
      </PageHeading>
      <p class="muted">
        On connector <a href={to.connector(connector)}>{connector}</a>
      </p>
      <ErrorPanel error={account.error} />
      {view === undefined ? (
        account.loading ? (
          <p>Reading the account on the target…</p>
        ) : null
      ) : (
        <>
          <dl class="facts" aria-label="Account">
            <div>
              <dt>State</dt>
              <dd>
                <StatusBadge
                  status={
                    view.account.enabled === undefined
                      ? 'unknown'
                      : view.account.enabled
                        ? 'enabled'
                        : 'locked'
                  }
                />
              </dd>
            </div>
            <div>
              <dt>Last logon</dt>
              <dd>
                <LastLogon view={view} />
              </dd>
            </div>
            {view.account.displayName === undefined ? null : (
              <div>
                <dt>Display name</dt>
                <dd>{view.account.displayName}</dd>
              </div>
            )}
            <div>
              <dt>Target id</dt>
              <dd>
                <code>{view.account.id}</code>
              </dd>
            </div>
          </dl>
          <section aria-labelledby="direct-heading">
            <h2 id="direct-heading">Direct memberships</h2>
            {(view.directMemberships ?? []).length === 0 ? (
              <p>No direct membership.</p>
            ) : (
              <ul class="group-list">
                {(view.directMemberships ?? []).map((group) => (
                  <li key={group.id}>
                    <GroupName group={group} connector={info} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          {view.effectiveInheritedMemberships === undefined ? null : (
            <section aria-labelledby="inherited-heading">
              <h2 id="inherited-heading">Effective inherited memberships</h2>
              <p class="muted">
                Groups the account holds through nesting, each with the path that grants it. The
                service never writes these.
              </p>
              {view.effectiveInheritedMemberships.length === 0 ? (
                <p>None: no direct group is nested in another.</p>
              ) : (
                <ScrollTable label="Effective inherited memberships" className="inherited">
                  <thead>
                    <tr>
                      <th scope="col">Group</th>
                      <th scope="col">Inherited through</th>
                    </tr>
                  </thead>
                  <tbody>
                    {view.effectiveInheritedMemberships.map((group) => (
                      <tr key={group.id}>
                        <th scope="row">
                          <GroupName group={group} connector={info} />
                          {group.alsoDirect === true ? (
                            <span class="muted"> (also direct)</span>
                          ) : null}
                        </th>
                        <td>
                          <ol class="path" aria-label={`Path to ${group.displayName}`}>
                            {group.path.map((step) => (
                              <li key={step.id}>{step.displayName}</li>
                            ))}
                          </ol>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </ScrollTable>
              )}
            </section>
          )}
          <Notices notices={view.notices} label="Notices of the memberships read" />
          <ExtraFields
            value={view}
            known={[
              'connector',
              'account',
              'lastLogon',
              'directMemberships',
              'effectiveInheritedMemberships',
              'notices',
            ]}
          />
        </>
      )}
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent journal entries</h2>
        <ErrorPanel error={journal.error} />
        {journal.data === undefined ? null : journal.data.length === 0 ? (
          <p>No change recorded in the last {RECENT_DAYS} days.</p>
        ) : (
          <ul class="recent">
            {journal.data.map((entry) => (
              <li key={entry.key}>
                <time dateTime={entry.at}>{formatTime(entry.at)}</time> {entry.change}
                {entry.groupName === undefined ? '' : `: ${entry.groupName}`}{' '}
                <a href={to.request(entry.requestId)}>request</a>
              </li>
            ))}
          </ul>
        )}
        <p>
          <a href={to.journal({ connector, accountId })}>The whole journal of this account</a> ·{' '}
          <a href={to.requests({ connector, accountId })}>Requests for this account</a>
        </p>
      </section>
    </>
  );
}
