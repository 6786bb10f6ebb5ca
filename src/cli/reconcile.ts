import { connectorKind } from '../connectors/connector-kinds';
import type { DriftFinding } from '../domain/drift-finding';
import { ProvisioningError } from '../domain/errors';
import type { ReconciliationResult } from '../domain/reconciliation-result';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';
import { runJob } from './run-job';

/** A reconciliation waits out requests in flight (settle windows): give it time. */
const WAIT_MS = 30 * 60_000;
/** Findings read per page of the report. */
const PAGE = 500;

/**
 * `reconcile <connector>`: the connector's reconciliation job, run through the service as
 * `POST /api/connectors/{name}/reconciliations` runs it, then the open findings of its drift
 * report as a table. Exit code 0 with no open finding in a complete run, 1 with some or when
 * the run could not judge everything, so scripts can tell.
 */
export async function reconcileCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const settings = ctx.settings(args.positionals[0] ?? '');
  const type = connectorKind(settings).reconciliationJobType;
  if (type === undefined) {
    throw new ProvisioningError(
      'OPERATION_NOT_SUPPORTED',
      `connector "${settings.name}" (${settings.kind}) cannot be reconciled`,
      { object: settings.name },
    );
  }
  const service = await ctx.service();
  const result = await runJob<ReconciliationResult>(
    ctx,
    'reconciliation',
    { type, connector: settings.name, settleSeconds: settings.reconcileSettleSeconds },
    'reconciliation',
    WAIT_MS,
  );
  print(
    `${type} of connector "${settings.name}" (${result.mode}${result.complete ? '' : ', INCOMPLETE'}): ` +
      `${result.read.groups} groups and ${result.read.accounts} accounts read; ` +
      `${Object.values(result.found).reduce((a, b) => a + b, 0)} new findings, ${result.closed} closed`,
  );
  for (const why of result.incomplete) print(`  not judged: ${why}`);
  for (const { account, why } of result.notChecked) print(`  not checked: ${account}: ${why}`);
  for (const notice of result.notices) print(`  notice: ${notice}`);

  const open: DriftFinding[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await service.services.drift.query({
      connector: settings.name,
      status: 'open',
      limit: PAGE,
      ...(continuationToken === undefined ? {} : { continuationToken }),
    });
    open.push(...page.findings);
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined);
  if (open.length === 0) {
    print(noFindingVerdict(result.complete));
  } else {
    print(`${open.length} open finding(s):`);
    for (const line of findingsTable(open)) print(`  ${line}`);
  }
  if (service.ephemeralStorage) {
    print(
      '(kept in an in-process Azurite until the CLI exits: set AzureWebJobsStorage to keep the drift report)',
    );
  }
  return open.length === 0 && result.complete ? 0 : 1;
}

/**
 * What a run without open findings may say: that the target holds what the service assigned
 * only when it judged everything; else that it could not tell (DESIGN invariant 11: no
 * verdict from the absence of a finding it never looked for).
 */
export function noFindingVerdict(complete: boolean): string {
  return complete
    ? 'No open finding: the target holds what the service assigned.'
    : 'No open finding among what was judged, but the run was INCOMPLETE (see "not judged" and ' +
        '"not checked" above): could not tell whether the target holds what the service assigned.';
}

/** The findings as aligned columns: type, account or member, group, first seen, finding id. */
export function findingsTable(findings: readonly DriftFinding[]): string[] {
  const rows = [
    ['TYPE', 'ACCOUNT', 'GROUP', 'DETAIL', 'FIRST SEEN', 'FINDING'],
    ...findings.map((f) => [
      f.type,
      f.accountId ?? `${f.memberName ?? f.targetId} (${f.targetId})`,
      f.groupId === undefined ? '' : `${f.groupName ?? f.groupId} (${f.groupId})`,
      f.expectedEnabled === undefined
        ? ''
        : `set ${enabledWord(f.expectedEnabled)}, is ${enabledWord(f.observedEnabled)}`,
      f.firstSeen,
      f.findingId,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
}

function enabledWord(enabled: boolean | undefined): string {
  return enabled === undefined ? 'gone' : enabled ? 'enabled' : 'locked';
}
