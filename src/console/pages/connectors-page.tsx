import { useApp } from '../app-context';
import { PageHeading } from '../components/page-heading';
import { to } from '../routes';

/** The configured connectors and where to go for each. */
export function ConnectorsPage() {
  const { connectors } = useApp();
  return (
    <>
      <PageHeading title="Connectors" />
      {connectors.length === 0 ? <p>No connector is configured.</p> : null}
      <ul class="cards">
        {connectors.map((connector) => (
          <li key={connector.name} class="card">
            <h2>
              <a href={to.connector(connector.name)}>{connector.name}</a>
            </h2>
            <p class="muted">kind {connector.kind}</p>
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
