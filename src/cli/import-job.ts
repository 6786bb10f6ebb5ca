import { randomUUID } from 'node:crypto';
import { connectorKind } from '../connectors/connector-kinds';
import { ProvisioningError } from '../domain/errors';
import type { ImportSummary } from '../workflows/activities/catalogue-import-run';
import { jobInstanceId, ORCHESTRATIONS } from '../workflows/names';
import type { JobInput, JobReport } from '../workflows/orchestrators/job-orchestrators';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';

/** A catalogue of 100,000 groups is read in minutes even throttled. */
const WAIT_MS = 30 * 60_000;

/**
 * `import <connector> --incremental|--overwrite`: the catalogue import as the API's job runs
 * it, through the service: the catalogue and the connector's delta link are kept in the
 * storage `AzureWebJobsStorage` names. Prints the mode, the counts and the notices (why an
 * incremental import read everything).
 */
export async function importJobCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const settings = ctx.settings(args.positionals[0] ?? '');
  const service = await ctx.service();
  const input: JobInput = {
    jobId: randomUUID(),
    type: connectorKind(settings).catalogueJobType,
    connector: settings.name,
    overwriteExisting: args.values.overwrite === true,
    incremental: args.values.incremental === true,
    trigger: 'cli',
  };
  const instanceId = jobInstanceId(input.jobId);
  await service.driver.startNew(ORCHESTRATIONS.catalogueImport, instanceId, input);
  const job = (await service.driver.waitFor(instanceId, WAIT_MS)).output as JobReport | undefined;
  if (job?.status !== 'succeeded' || job.result === undefined) {
    throw new ProvisioningError(
      job?.error?.code ?? 'INTERNAL_ERROR',
      job?.error?.message ?? `the import job ${input.jobId} did not finish`,
      { object: settings.name },
    );
  }
  const result = job.result as ImportSummary;
  print(
    `${input.type} of connector "${settings.name}" (${result.mode}): ${result.groups} groups read; ` +
      `${result.added} added, ${result.renamed} renamed, ${result.renameSkipped} renamed on the target only, ` +
      `${result.returned} returned, ${result.unchanged} unchanged, ${result.markedGone} marked gone`,
  );
  for (const notice of result.notices) print(`  notice: ${notice}`);
  if (service.ephemeralStorage) {
    print(
      '(kept in an in-process Azurite until the CLI exits: set AzureWebJobsStorage to keep the catalogue and the delta link)',
    );
  }
  return 0;
}
