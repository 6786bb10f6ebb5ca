import { processConfiguration } from '../process-configuration';
import { isProvisioningError } from '../../domain/errors';
import { consoleLogger } from '../console-logger';
import { startLocalHost, type LocalHost } from './local-host';

/** `npm start`: the local host on 127.0.0.1, with sandboxes when no connector is configured. */
async function main(): Promise<void> {
  const config = processConfiguration();
  const logger = consoleLogger(config.logLevel);
  const host = await startLocalHost({ logger });
  for (const line of banner(host)) console.log(line);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    console.log('Stopping the local host...');
    host.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function banner(host: LocalHost): string[] {
  const lines = [
    '',
    `Provisioning service local host: ${host.url}/api`,
    `API key (header x-functions-key): ${host.apiKey}`,
    `OpenAPI: curl -s -H "x-functions-key: ${host.apiKey}" ${host.url}/api/openapi.json`,
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
        `  curl -s -i -X POST ${host.url}/api/requests -H "x-functions-key: ${host.apiKey}" -H "content-type: application/json" -d '${body}'`,
      );
    }
    lines.push('Then follow the Location header: curl -s -H "x-functions-key: ..." <location>');
    lines.push('');
  }
  lines.push('Press Ctrl+C to stop (state is kept in memory only).');
  return lines;
}

main().catch((error: unknown) => {
  console.error(
    isProvisioningError(error)
      ? `The local host did not start: ${error.message}`
      : `The local host did not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
