import type { SandboxConnectors } from '../sandbox-connectors';
import type { LocalHost } from './local-host';

/** What the banner reads of the host. */
export type BannerHost = Pick<
  LocalHost,
  | 'url'
  | 'consoleUrl'
  | 'apiKey'
  | 'apiKeyGenerated'
  | 'config'
  | 'sandboxes'
  | 'importSchedules'
  | 'restored'
>;

/** How the curl examples name a key the operator set: their own environment holds it. */
const KEY_FROM_ENVIRONMENT = '$LOCAL_HOST_API_KEY';

/**
 * What `npm start` prints: the API, where its state is kept, the connectors and ready curl
 * commands. The API key is printed only when the host made it: a key the operator set in
 * LOCAL_HOST_API_KEY stays out of the console (and out of whatever records it), and the
 * examples name the variable.
 *
 * @example
 * for (const line of localHostBanner(host, '/work/project/.local-host')) console.log(line);
 */
export function localHostBanner(host: BannerHost, stateDir?: string): string[] {
  const { instances, resumed } = host.restored;
  const key = host.apiKeyGenerated ? host.apiKey : KEY_FROM_ENVIRONMENT;
  const lines = [
    '',
    `Provisioning service local host: ${host.url}/api`,
    `Web console: ${host.consoleUrl} (sign in with the API key${host.apiKeyGenerated ? ' below' : ' set in LOCAL_HOST_API_KEY'})`,
    host.apiKeyGenerated
      ? `API key (header x-functions-key): ${host.apiKey}`
      : 'API key (header x-functions-key): the one set in LOCAL_HOST_API_KEY',
    `OpenAPI: curl -s -H "x-functions-key: ${key}" ${host.url}/api/openapi.json`,
    `Metrics (Prometheus text): curl -s -H "x-functions-key: ${key}" ${host.url}/api/metrics`,
    `Health: curl -s -H "x-functions-key: ${key}" ${host.url}/api/health (liveness, no key: ${host.url}/api/health/live)`,
    ...(stateDir === undefined
      ? []
      : [
          `State: ${stateDir} (${instances === 0 ? 'new' : `${instances} requests and jobs kept, ${resumed} unfinished resumed`}; npm start -- --fresh starts clean)`,
        ]),
    '',
    'Connectors:',
    ...host.config.connectors.map((c) => `  ${c.name} (${c.kind})`),
    ...(host.sandboxes?.describe().map((line) => `  ${line}`) ?? []),
    ...host.importSchedules.map(
      (s) => `Import schedule: ${s.connector}, next ${s.next?.toISOString() ?? 'never'}`,
    ),
    '',
  ];
  if (host.sandboxes !== undefined) {
    lines.push('Provision an account with two groups on each sandbox:');
    for (const [connector, accountId] of [
      ['scim-sandbox', 'jane.doe'],
      ['graph-sandbox', 'jane.doe@contoso.example'],
    ] as const) {
      const body = JSON.stringify({
        connector,
        account: {
          accountId,
          displayName: 'Jane Doe',
          givenName: 'Jane',
          familyName: 'Doe',
          email: 'jane.doe@contoso.example',
        },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales'] }],
      });
      lines.push(
        `  curl -s -i -X POST ${host.url}/api/requests -H "x-functions-key: ${key}" -H "content-type: application/json" -d '${body}'`,
      );
    }
    lines.push(`Then follow the Location header: curl -s -H "x-functions-key: ${key}" <location>`);
    lines.push('');
    lines.push(...handChangeLines(host.url, key, host.sandboxes));
  }
  lines.push(
    stateDir === undefined
      ? 'Press Ctrl+C to stop (state is kept in memory only).'
      : 'Press Ctrl+C to stop; the state stays in the folder above.',
  );
  return lines;
}

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * How to change each sandbox by hand, as an administrator of the target would, outside the
 * service (issue 18, item 5), then find it with a reconciliation: the sandboxes' own
 * administrator credentials, made for this run. The service's own credentials stay unprinted.
 */
function handChangeLines(url: string, key: string, sandboxes: SandboxConnectors): string[] {
  const { scim, graph, scimGroups, handChanges } = sandboxes;
  const scimBody = JSON.stringify({
    schemas: [PATCH_OP],
    Operations: [{ op: 'add', path: 'members', value: [{ value: 'jane.doe' }] }],
  });
  const { clientId, secret } = handChanges.graphPortal;
  const tokenUrl = `${graph.authority}/${graph.tenantId}/oauth2/v2.0/token`;
  const readToken = `node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token'`;
  return [
    'Change a sandbox by hand, outside the service, as its administrators would:',
    `  SCIM (its administrator's bearer token ${handChanges.scimToken}): add jane.doe to Finance`,
    `  curl -s -X PATCH ${scim.endpoint}/Groups/${scimGroups['Finance'] ?? '<group id>'} -H "authorization: Bearer ${handChanges.scimToken}" -H "content-type: application/scim+json" -d '${scimBody}'`,
    `  Graph (the Entra admin center's app: client ${clientId}, secret ${secret}; HTTPS with a self-signed certificate, hence -k): lock jane.doe`,
    `  TOKEN=$(curl -s -k ${tokenUrl} -d grant_type=client_credentials -d client_id=${clientId} --data-urlencode client_secret=${secret} --data-urlencode scope=${graph.graphEndpoint}/.default | ${readToken})`,
    `  curl -s -k -X PATCH ${graph.graphEndpoint}/v1.0/users/jane.doe@contoso.example -H "authorization: Bearer $TOKEN" -H "content-type: application/json" -d '{"accountEnabled":false}'`,
    'Then reconcile (accounts a request touched in the last 2 minutes are judged once they settle), and read the drift report:',
    ...['scim-sandbox', 'graph-sandbox'].map(
      (connector) =>
        `  curl -s -i -X POST ${url}/api/connectors/${connector}/reconciliations -H "x-functions-key: ${key}"`,
    ),
    `  curl -s -H "x-functions-key: ${key}" "${url}/api/connectors/scim-sandbox/drift?status=open" (add -H "accept: text/csv" for CSV)`,
    '',
  ];
}
