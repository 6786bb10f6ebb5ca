import {
  createGraphConnector,
  type GraphConnector,
  type GraphConnectorDeps,
} from '../../src/connectors/graph';
import { graphConnectorSchema } from '../../src/connectors/graph/graph-settings';
import { LocalSecretStore } from '../../src/secrets';
import { DEFAULT_SANDBOX_CLIENT, type GraphSandbox } from '../../src/sandbox/graph';

/**
 * A Graph connector signed in to `sandbox` as its default client, `settings` on top of the
 * sandbox's endpoints; `time` puts it on a clock of the test's (a sped-up quota).
 */
export function graphSandboxConnector(
  sandbox: GraphSandbox,
  settings: Record<string, unknown> & { name: string },
  time: Pick<GraphConnectorDeps, 'now' | 'sleep'> = {},
): GraphConnector {
  const parsed = graphConnectorSchema.parse({
    kind: 'graph',
    tenantId: sandbox.tenantId,
    clientId: DEFAULT_SANDBOX_CLIENT.clientId,
    clientSecretName: 'secret',
    upnDomain: 'contoso.example',
    authority: sandbox.authority,
    graphEndpoint: sandbox.graphEndpoint,
    ...settings,
  });
  return createGraphConnector(parsed, {
    secrets: new LocalSecretStore({ secret: DEFAULT_SANDBOX_CLIENT.secret }),
    ca: sandbox.ca,
    ...time,
  });
}
