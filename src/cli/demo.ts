import { formatCompatibilityReport, runScimCompatibility } from '../connectors/scim';
import type { CliContext } from './cli-context';
import { formatStatus, type Print } from './commands';
import { provision } from './provision';

/**
 * `npm start` until the local host lands: runs the SCIM connector end to end against the
 * sandbox (or the first configured SCIM connector) and says what it did at each step.
 */
export async function demoCommand(ctx: CliContext, print: Print): Promise<number> {
  if (ctx.sandboxes !== undefined) {
    print('No connector configured (PROVISIONING_CONNECTORS): started the sandboxes on loopback:');
    ctx.sandboxes.describe().forEach((line) => print(`  ${line}`));
  }
  const settings =
    ctx.sandboxes?.settings.find((s) => s.kind === 'scim') ?? ctx.settings('scim-sandbox');
  const connector = ctx.connector(settings.name);

  print('\n1. Status check');
  formatStatus(await connector.checkStatus()).forEach((line) => print(`  ${line}`));

  print('\n2. Catalogue import');
  let count = 0;
  const names: string[] = [];
  for await (const group of connector.importGroups()) {
    count++;
    names.push(group.displayName);
  }
  print(`  imported ${count} groups: ${names.join(', ')}`);

  const accountId = `demo.user.${Date.now().toString(36)}`;
  const grant = names.slice(0, 2);
  print(
    `\n3. Provisioning "${accountId}": create, grant ${grant.join(' and ')}, revoke ${grant[1] ?? '-'}, lock`,
  );
  await provision(
    connector,
    {
      profile: {
        accountId,
        displayName: 'Demo User',
        givenName: 'Demo',
        familyName: 'User',
        email: `${accountId}@example.invalid`,
      },
      create: true,
      grant,
    },
    print,
  );
  const account = await provision(
    connector,
    { profile: { accountId }, revoke: grant.slice(1), lock: true },
    print,
  );
  if (account !== undefined) {
    const found = await connector.findAccount(accountId);
    print(
      `  read back: ${found?.enabled === false ? 'locked' : 'NOT locked'}; last logon: ${(await connector.readLastLogon(account)).status}`,
    );
  }

  print('\n4. Compatibility run (test account: create, grant and revoke a group, lock, delete)');
  const report = await runScimCompatibility(
    settings.kind === 'scim' ? settings : (undefined as never),
    ctx.secrets,
  );
  print(formatCompatibilityReport(report).replace(/^/gm, '  '));

  print(`\n5. Clean-up`);
  await provision(connector, { profile: { accountId }, delete: true }, print);
  print('\nDone. Try: npm run cli -- help');
  return 0;
}
