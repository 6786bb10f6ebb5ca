import { connectorKind } from '../connectors/connector-kinds';
import type { ImportSummary } from '../workflows/activities/catalogue-import-run';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';
import { runJob } from './run-job';

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
  const type = connectorKind(settings).catalogueJobType;
  const result = await runJob<ImportSummary>(
    ctx,
    'catalogueImport',
    {
      type,
      connector: settings.name,
      overwriteExisting: args.values.overwrite === true,
      incremental: args.values.incremental === true,
    },
    'import',
    WAIT_MS,
  );
  print(
    `${type} of connector "${settings.name}" (${result.mode}): ${result.groups} groups read; ` +
      `${result.added} added, ${result.renamed} renamed, ${result.renameSkipped} renamed on the target only, ` +
      `${result.returned} returned, ${result.unchanged} unchanged, ${result.markedGone} marked gone ` +
      `(target answered 404), ${result.foundById} found by id, ${result.goneUnconfirmed} could not be told`,
  );
  for (const notice of result.notices) print(`  notice: ${notice}`);
  if (service.ephemeralStorage) {
    print(
      '(kept in an in-process Azurite until the CLI exits: set AzureWebJobsStorage to keep the catalogue and the delta link)',
    );
  }
  return 0;
}
