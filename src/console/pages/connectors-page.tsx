import { useApp } from '../app-context';
import type { ConnectorInfo } from '../api-types';
import { ErrorPanel } from '../components/error-panel';
import { PageHeading } from '../components/page-heading';
import { StatusBadge } from '../components/status-badge';
import { to } from '../routes';
import { useResource } from '../use-resource';

/** The configured connectors, each with its quarantine as it is now, and where to go for each. */
export function ConnectorsPage() {
  const { api, connectors } = useApp();
  const now = useResource(
    async () => (await api.get<{ connectors: ConnectorInfo[] }>('connectors')).connectors,
    [],
  );
  const quarantineOf = (name: string) => now.data?.find((c) => c.name === name)?.quarantine;
  return (
    <>
      <PageHeading title="Connectors" />
      <ErrorPanel error={now.error} title="The connectors' state could not be read" />
      {connectors.length === 0 ? <p>No connector is configured.</p> : null}
      <ul class="cards">
        {connectors.map((connector) => (
          <li key={connector.name} class="card">
            <h2>
              <a href={to.connector(connector.name)}>{connector.name}</a>
            </h2>
            <p class="muted">kind {connector.kind}</p>
            {quarantineOf(connector.name)?.state === 'quarantined' ? (
              <p>
                <StatusBadge status="quarantined" />{' '}
                {quarantineOf(connector.name)?.heldRequests ?? 0} request(s) held
              </p>
            ) : null}
            <ul class="links">
              <li>
                <a href={to.connector(connector.name)}>Status check</a>
              </li>
              <li>
                <a href={to.roles(connector.name)}>Roles</a>
              </li>
              <li>
                <a href={to.accounts({ connector: connector.name })}>Accounts</a>
              </li>
              {connector.features.groupStructure ? (
                <li>
                  <a href={to.groups({ connector: connector.name })}>Group structure</a>
                </li>
              ) : null}
              <li>
                <a href={to.requests({ connector: connector.name })}>Requests</a>
              </li>
            </ul>
          </li>
        ))}
      </ul>
    </>
  );
}
