import type { LastLogonResult, StatusFinding, StatusResult } from '../connectors/connector';
import { ProvisioningError } from '../domain/errors';
import type { TargetAccount } from '../domain/account';
import type { GroupLink } from '../domain/nested-groups';
import type { CliContext } from './cli-context';
import { importJobCommand } from './import-job';
import { lastRunLine } from './compat';
import { findGroupByName, previewProvision, provision, type ProvisionRequest } from './provision';
import { quarantineLines } from './quarantine';
import type { CommandArgs, Print } from './command-types';

export type { CommandArgs, Print } from './command-types';

export function formatStatus(status: StatusResult): string[] {
  return [
    `Status of connector "${status.connector}" (${status.kind}): ${status.ok ? 'OK' : 'FAILED'}: ${status.summary}`,
    ...status.findings.map(
      (f) => `  ${f.outcome.padEnd(12)} ${f.name}${evidenceTag(f)}: ${f.detail}`,
    ),
  ];
}

/** What a permission finding rests on, as the CLI prints it. */
function evidenceTag(finding: StatusFinding): string {
  if (finding.evidence === undefined) return '';
  return finding.evidence === 'probe' ? ' [probe read]' : ' [token claim]';
}

/**
 * `status <connector> [--probe]`: the spec's "Check status" (Graph: plus probe reads), the
 * date and verdict of the connector's last compatibility run, and its quarantine when the
 * CLI works on the service's storage.
 */
export async function statusCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = ctx.connector(connectorArg(args));
  const status = await connector.checkStatus({ probe: args.values.probe === true });
  formatStatus(status).forEach((line) => print(line));
  const lastRun = await lastRunLine(ctx, connector);
  if (lastRun !== undefined) print(lastRun);
  (await quarantineLines(ctx, connector.name)).forEach((line) => print(line));
  return status.ok ? 0 : 1;
}

/**
 * `import <connector>`: reads the whole group catalogue, page by page. With `--incremental`
 * or `--overwrite`, runs the service's import job instead (src/cli/import-job.ts).
 */
export async function importCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  if (args.values.incremental === true || args.values.overwrite === true) {
    return importJobCommand(ctx, args, print);
  }
  const connector = ctx.connector(connectorArg(args));
  const started = Date.now();
  let count = 0;
  let notWritable = 0;
  for await (const group of connector.importGroups()) {
    count++;
    if (group.writable === false) notWritable++;
    if (count <= 10)
      print(
        `  ${group.displayName} (${group.id})${group.writable === false ? ` not writable: ${group.notWritableReason ?? ''}` : ''}`,
      );
  }
  if (count > 10) print(`  ... and ${count - 10} more`);
  print(
    `Imported ${count} groups from connector "${connector.name}" in ${Date.now() - started} ms` +
      (notWritable > 0 ? ` (${notWritable} not writable)` : ''),
  );
  return 0;
}

/** `accounts <connector>`: every account on the target, all pages. */
export async function accountsCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = ctx.connector(connectorArg(args));
  let count = 0;
  for await (const account of connector.listAccounts()) {
    count++;
    if (count <= 10)
      print(
        `  ${account.accountId} (${account.id})${account.enabled === true ? '' : ` ${stateOf(account)}`}`,
      );
  }
  if (count > 10) print(`  ... and ${count - 10} more`);
  print(`${count} account(s) on connector "${connector.name}"`);
  return 0;
}

/** `groups <connector> <text>`: live group search. */
export async function groupsCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = ctx.connector(connectorArg(args));
  const text = args.positionals[1] ?? '';
  const groups = await connector.searchGroups(text);
  print(`${groups.length} group(s) on "${connector.name}" whose name contains "${text}":`);
  groups.forEach((g) => print(`  ${g.displayName} (${g.id})`));
  return 0;
}

/** `account <connector> <accountId>`: the account as the target has it. */
export async function accountCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = ctx.connector(connectorArg(args));
  const accountId = requiredPositional(args, 1, 'account ID');
  const account = await connector.findAccount(accountId);
  if (account === undefined) {
    print(`Account "${accountId}" not found on "${connector.name}"`);
    return 1;
  }
  const lastLogon = await connector.readLastLogon(account);
  print(
    `Account "${account.accountId}" on "${connector.name}": id ${account.id}, ${stateOf(account)}`,
  );
  print(`  last logon: ${describeLastLogon(lastLogon)}`);
  if (connector.readInheritedMemberships !== undefined) {
    const memberships = await connector.readInheritedMemberships(account);
    print(`  direct memberships: ${memberships.direct.map(describeLink).join(', ') || 'none'}`);
    print('  effective inherited memberships:');
    if (memberships.inherited.length === 0) print('    none');
    for (const group of memberships.inherited) {
      print(
        `    ${describeEntry(group)} through ${group.path.map((g) => g.displayName).join(' > ')}`,
      );
    }
    for (const notice of memberships.notices) print(`  notice: ${notice.message}`);
  }
  return 0;
}

/**
 * `provision <connector> <accountId> [--create] [--grant A,B] [--revoke C] [--lock|--unlock]
 * [--delete] [--requested-by W] [--reason R] [--correlation-id C] [--preview]`: with
 * `--preview`, the plan only (reads made, nothing written).
 */
export async function provisionCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = connectorArg(args);
  ctx.settings(connector);
  const accountId = requiredPositional(args, 1, 'account ID');
  const text = (name: string) => {
    const value = args.values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const list = (name: string) =>
    (text(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const preview = args.values.preview === true;
  print(
    `${preview ? 'Preview of provisioning' : 'Provisioning'} account "${accountId}" on "${connector}":`,
  );
  const service = await ctx.service();
  if (service.ephemeralStorage) {
    print(
      '  (journal and account records in an in-process Azurite: set AzureWebJobsStorage to keep them)',
    );
  }
  const request: ProvisionRequest = {
    connector,
    profile: {
      accountId,
      ...(text('display-name') === undefined ? {} : { displayName: text('display-name') }),
      ...(text('email') === undefined ? {} : { email: text('email') }),
    },
    create: args.values.create === true,
    grant: list('grant'),
    revoke: list('revoke'),
    lock: args.values.lock === true,
    unlock: args.values.unlock === true,
    delete: args.values.delete === true,
    context: {
      ...(text('requested-by') === undefined ? {} : { requestedBy: text('requested-by') }),
      ...(text('reason') === undefined ? {} : { reason: text('reason') }),
      ...(text('correlation-id') === undefined ? {} : { correlationId: text('correlation-id') }),
    },
  };
  const outcome = await (preview ? previewProvision : provision)(ctx, request, print);
  return outcome.status === 'succeeded' ? 0 : 1;
}

/** `structure <connector> <group name>`: the nested group structure (Graph). */
export async function structureCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const connector = ctx.connector(connectorArg(args));
  const name = requiredPositional(args, 1, 'group name');
  if (connector.readGroupStructure === undefined) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `connector "${connector.name}" has no nested groups to show`,
    );
  }
  const group = await findGroupByName(connector, name);
  const structure = await connector.readGroupStructure(group.id);
  print(
    `Structure below ${structure.root.displayName} (${structure.root.id}): ${structure.groups.length} group(s)${structure.complete ? '' : ', incomplete'}`,
  );
  for (const entry of structure.groups) {
    print(`${'  '.repeat(entry.depth + 1)}${describeEntry(entry)}`);
  }
  for (const notice of structure.notices) print(`notice: ${notice.message}`);
  return 0;
}

function describeLastLogon(lastLogon: LastLogonResult): string {
  if (lastLogon.status === 'found')
    return `${lastLogon.value ?? ''} (from ${lastLogon.detail ?? ''})`;
  return lastLogon.status === 'not available' && lastLogon.detail !== undefined
    ? `not available (${lastLogon.detail})`
    : lastLogon.status;
}

/** A group by name; one the app may not read by its id, saying why. */
function describeLink(group: GroupLink): string {
  return group.notReadable === undefined
    ? group.displayName
    : `${group.id} (not readable: ${group.notReadable})`;
}

/** A group by name and id; one the app may not read by its id, saying why. */
function describeEntry(group: GroupLink): string {
  return group.notReadable === undefined
    ? `${group.displayName} (${group.id})`
    : describeLink(group);
}

export function connectorArg(args: CommandArgs): string {
  return requiredPositional(args, 0, 'connector name');
}

function requiredPositional(args: CommandArgs, index: number, what: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === '') {
    throw new ProvisioningError('REQUEST_INVALID', `missing argument: ${what}`);
  }
  return value;
}

/** An account's state as the target showed it: a target that showed none is not called enabled. */
function stateOf(account: TargetAccount): string {
  if (account.enabled === undefined) return 'state not shown by the target';
  return account.enabled ? 'enabled' : 'locked';
}
