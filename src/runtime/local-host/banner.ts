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
  }
  lines.push(
    stateDir === undefined
      ? 'Press Ctrl+C to stop (state is kept in memory only).'
      : 'Press Ctrl+C to stop; the state stays in the folder above.',
  );
  return lines;
}
