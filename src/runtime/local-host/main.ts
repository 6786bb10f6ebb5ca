import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { processConfiguration } from '../process-configuration';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import { consoleLogger } from '../console-logger';
import { localHostBanner } from './banner';
import { startLocalHost } from './local-host';

/** Where `npm start` keeps its state: a folder of the project, ignored by git. */
const DEFAULT_STATE_DIR = '.local-host';

/**
 * `npm start [-- --fresh] [-- --state <folder>]`: the local host on 127.0.0.1, with
 * sandboxes when no connector is configured, its state kept in `.local-host` (or the
 * folder given); `--fresh` deletes it first.
 */
async function main(): Promise<void> {
  const config = processConfiguration();
  const logger = consoleLogger(config.logLevel);
  const args = readArgs(process.argv.slice(2));
  if (args.fresh) await rm(args.stateDir, { recursive: true, force: true });
  const host = await startLocalHost({ logger, stateDir: args.stateDir });
  for (const line of localHostBanner(host, args.stateDir)) console.log(line);
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

function readArgs(argv: string[]): { fresh: boolean; stateDir: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { fresh: { type: 'boolean', default: false }, state: { type: 'string' } },
    });
  } catch (error) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `${error instanceof Error ? error.message : String(error)} (options: --fresh, --state <folder>)`,
    );
  }
  return {
    fresh: parsed.values.fresh === true,
    stateDir: resolve(parsed.values.state ?? DEFAULT_STATE_DIR),
  };
}

main().catch((error: unknown) => {
  console.error(
    isProvisioningError(error)
      ? `The local host did not start: ${error.message}`
      : `The local host did not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
