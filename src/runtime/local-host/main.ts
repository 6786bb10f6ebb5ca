import { processConfiguration } from '../process-configuration';
import { isProvisioningError } from '../../domain/errors';
import { consoleLogger } from '../console-logger';
import { localHostBanner } from './banner';
import { startLocalHost } from './local-host';

/** `npm start`: the local host on 127.0.0.1, with sandboxes when no connector is configured. */
async function main(): Promise<void> {
  const config = processConfiguration();
  const logger = consoleLogger(config.logLevel);
  const host = await startLocalHost({ logger });
  for (const line of localHostBanner(host)) console.log(line);
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

main().catch((error: unknown) => {
  console.error(
    isProvisioningError(error)
      ? `The local host did not start: ${error.message}`
      : `The local host did not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
