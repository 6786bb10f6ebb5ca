import type { Connector } from '../connectors/connector';
import { connectorKind } from '../connectors/connector-kinds';
import { formatCompatibilityReport } from '../connectors/scim';
import type { CliContext } from './cli-context';
import { accountCommand, formatStatus, type Print } from './commands';
import { provision } from './provision';

/**
 * `npm start` until the local host lands: runs both connectors end to end against the
 * sandboxes and says what it did at each step.
 */
export async function demoCommand(ctx: CliContext, print: Print): Promise<number> {
  if (ctx.sandboxes === undefined) {
    print(
      'Connectors are configured (PROVISIONING_CONNECTORS): the demo runs against sandboxes only.',
    );
    print('Use the other commands (npm run cli -- help) against configured connectors.');
    return 2;
  }
  print('No connector configured (PROVISIONING_CONNECTORS): started the sandboxes on 127.0.0.1:');
  ctx.sandboxes.describe().forEach((line) => print(`  ${line}`));

  print('\n=== Connector A (SCIM 2.0): scim-sandbox ===');
  await walkThrough(
    ctx,
    ctx.connector('scim-sandbox'),
    `demo.user.${Date.now().toString(36)}`,
    print,
  );
  await compatibility(ctx, 'scim-sandbox', print);

  print('\n=== Connector B (Microsoft Graph v1.0, MSAL client credentials): graph-sandbox ===');
  const graph = ctx.connector('graph-sandbox');
  await walkThrough(ctx, graph, `demo.user.${Date.now().toString(36)}`, print);
  print('\nA group whose members Graph will not write is refused before any write:');
  await provision(
    ctx,
    {
      connector: graph.name,
      profile: { accountId: 'megan.bowen@contoso.example' },
      grant: ['All Staff (dynamic)'],
    },
    print,
  );
  print('\nDone. Try: npm run cli -- help');
  return 0;
}

/** Status, catalogue, and an account's life: create, grant, revoke, lock, show, delete. */
async function walkThrough(
  ctx: CliContext,
  connector: Connector,
  accountId: string,
  print: Print,
): Promise<void> {
  print('\n1. Status check');
  formatStatus(await connector.checkStatus()).forEach((line) => print(`  ${line}`));

  print('\n2. Catalogue import');
  const names: string[] = [];
  for await (const group of connector.importGroups()) {
    if (group.writable !== false) names.push(group.displayName);
  }
  print(`  imported ${names.length} writable groups: ${names.join(', ')}`);

  const [first, second] = names;
  if (first === undefined || second === undefined) return;
  print(`\n3. Provisioning "${accountId}": create, grant ${first} and ${second}`);
  const profile = { accountId, displayName: 'Demo User' };
  const on = connector.name;
  await provision(ctx, { connector: on, profile, create: true, grant: [first, second] }, print);
  print(`\n4. Revoke ${second}, grant ${first} again (already held: no change), lock`);
  await provision(
    ctx,
    { connector: on, profile, grant: [first], revoke: [second], lock: true },
    print,
  );

  print('\n5. The account as the target has it');
  const found = await connector.findAccount(accountId);
  if (found !== undefined) {
    await accountCommand(
      ctx,
      { positionals: [connector.name, found.accountId], values: {} },
      (line) => print(`  ${line}`),
    );
  }

  print('\n6. Clean-up');
  await provision(ctx, { connector: on, profile, delete: true }, print);
}

async function compatibility(ctx: CliContext, name: string, print: Print): Promise<void> {
  print('\n7. Compatibility run (test account: create, grant and revoke a group, lock, delete)');
  const settings = ctx.settings(name);
  const kind = connectorKind(settings);
  if (kind.compatibilityRun === undefined) return;
  const report = await kind.compatibilityRun(settings, ctx.secrets, {});
  print(formatCompatibilityReport(report).replace(/^/gm, '  '));
}
