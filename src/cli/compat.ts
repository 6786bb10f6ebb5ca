import { lastRunSummary } from '../api/compatibility-runs-api';
import type { Connector } from '../connectors/connector';
import { connectorKind } from '../connectors/connector-kinds';
import { formatCompatibilityReport, type CompatibilityReport } from '../connectors/scim';
import { isProvisioningError, ProvisioningError } from '../domain/errors';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';
import { runJob } from './run-job';

/** A compatibility run creates, changes and deletes a few objects: minutes at most, even throttled. */
const WAIT_MS = 10 * 60_000;

/**
 * `compat <connector> [--group NAME]`: the compatibility run, as the API's job runs it
 * (through the service: its result is kept as the connector's last run). Prints the six
 * points with their evidence, the suggested settings and the action table; exit code 0
 * only when every point fits as configured.
 */
export async function compatCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const name = args.positionals[0] ?? '';
  const settings = ctx.settings(name);
  if (connectorKind(settings).compatibilityRun === undefined) {
    throw new ProvisioningError(
      'OPERATION_NOT_SUPPORTED',
      `connector "${settings.name}" (${settings.kind}) has no compatibility run: it is for SCIM servers`,
      { object: settings.name },
    );
  }
  const group = typeof args.values.group === 'string' ? args.values.group : undefined;
  const service = await ctx.service();
  const report = await runJob<CompatibilityReport>(
    ctx,
    'compatibilityRun',
    {
      type: 'Compatibility run',
      connector: settings.name,
      ...(group === undefined ? {} : { groupName: group }),
    },
    'compatibility run',
    WAIT_MS,
  );
  print(formatCompatibilityReport(report));
  if (service.ephemeralStorage) {
    print(
      '(kept in an in-process Azurite until the CLI exits: set AzureWebJobsStorage to keep it)',
    );
  }
  return report.fits ? 0 : 1;
}

/**
 * The status check's line on the last compatibility run, for kinds that have one: its date
 * and verdict, or that none was kept.
 */
export async function lastRunLine(
  ctx: CliContext,
  connector: Pick<Connector, 'name' | 'kind'>,
): Promise<string | undefined> {
  if (connectorKind(connector).compatibilityRun === undefined) return undefined;
  const service = await ctx.service();
  let last;
  try {
    last = await lastRunSummary(service.services, connector.name);
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return `Last compatibility run: could not be read: ${error.message}`;
  }
  if (last === undefined) return undefined;
  if (last === null) {
    return `Last compatibility run: none kept${service.ephemeralStorage ? ' (without AzureWebJobsStorage the CLI keeps runs only while it runs)' : ''}`;
  }
  return `Last compatibility run: ${last.at}: ${last.verdict}: ${last.summary}`;
}
