import { endGroupsCut } from '../workflows/end-groups-cut';
import { linkAccountByOperator } from '../workflows/operator-link';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';
import { commandLineOperator } from './quarantine';

/**
 * `end-groups-cut <connector> --reason WHY`: ends the cut kept for a SCIM connector's user
 * groups attribute, once its last compatibility run found the attribute complete after the
 * cut (as `POST /api/connectors/{name}/user-groups/end-cut`); the service's storage
 * (`AzureWebJobsStorage`) is where the verdict is kept.
 */
export async function endGroupsCutCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const name = args.positionals[0] ?? '';
  ctx.settings(name);
  const reason = typeof args.values.reason === 'string' ? args.values.reason : '';
  const { services } = await ctx.service();
  const result = await endGroupsCut(services, name, {
    reason,
    byName: commandLineOperator(),
    at: new Date().toISOString(),
  });
  print(
    result.ended
      ? `Connector "${name}": the user groups cut is ended; the attribute's silence is believed again`
      : `Connector "${name}": nothing ended (${result.note ?? 'no cut kept'})`,
  );
  if (result.userGroups !== undefined) {
    print(`  kept now: ${result.userGroups.verdict}, ${result.userGroups.why}`);
  }
  return result.ended ? 0 : 1;
}

/**
 * `link <connector> <accountId> --target-id ID --reason WHY`: after ACCOUNT_EXISTS, links the
 * account ID to the object that holds it now (as `POST /api/connectors/{name}/accounts/{id}/link`),
 * when the target shows the linked object gone and the account ID held by that object.
 */
export async function linkCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const [name = '', accountId = ''] = args.positionals;
  ctx.settings(name);
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const { services } = await ctx.service();
  const result = await linkAccountByOperator(services, name, accountId, {
    targetId: text(args.values['target-id']),
    reason: text(args.values.reason),
    byName: commandLineOperator(),
    at: new Date().toISOString(),
  });
  print(
    result.linked
      ? `Account "${accountId}" on connector "${name}" is linked to id ${result.targetId}`
      : `Account "${accountId}" on connector "${name}": nothing linked (${result.note ?? 'linked already'})`,
  );
  return 0;
}
