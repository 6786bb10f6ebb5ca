import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext, type CliContext } from '../../../src/cli/cli-context';
import { importCommand } from '../../../src/cli/commands';
import { reconcileCommand } from '../../../src/cli/reconcile';

let ctx: CliContext;
beforeAll(async () => {
  ctx = await openCliContext({});
});
afterAll(async () => ctx.close());

async function run(
  command: typeof reconcileCommand,
  connector: string,
  values: Record<string, boolean> = {},
) {
  const lines: string[] = [];
  const code = await command(ctx, { positionals: [connector], values }, (line) => lines.push(line));
  return { code, lines };
}

/** The SCIM sandbox's own administrator, as `npm start` tells a user to be one. */
async function byHand(method: string, path: string, body: unknown): Promise<{ id: string }> {
  const { scim, handChanges } = ctx.sandboxes!;
  const response = await fetch(`${scim.endpoint}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${handChanges.scimToken}`,
      'content-type': 'application/scim+json',
    },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as { id: string };
}

describe('npm run cli -- reconcile <connector>', () => {
  it('prints nothing to report on a target nobody touched, and exits 0', async () => {
    await run(importCommand, 'scim-sandbox', { incremental: true });
    const clean = await run(reconcileCommand, 'scim-sandbox');
    expect(clean.lines.join('\n')).toContain('No open finding');
    expect(clean.code).toBe(0);
  });

  it('prints a member added by hand as a row of the table, and exits 1', async () => {
    const user = await byHand('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'walk.in',
      active: true,
    });
    const engineering = ctx.sandboxes!.scimGroups['Engineering']!;
    // This sandbox names members by userName, as some SaaS apps do.
    await byHand('PATCH', `/Groups/${engineering}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: 'walk.in' }] }],
    });

    const { code, lines } = await run(reconcileCommand, 'scim-sandbox');
    expect(code).toBe(1);
    expect(lines[0]).toMatch(/^Reconcile SCIM accounts of connector "scim-sandbox" \(full\): /);
    const header = lines.findIndex((line) => line.trim().startsWith('TYPE'));
    expect(lines[header - 1]).toBe('1 open finding(s):');
    const row = lines[header + 1]!.trim().split(/\s{2,}/);
    expect(row.slice(0, 3)).toEqual([
      'unlinkedMember',
      `walk.in (${user.id})`,
      `Engineering (${engineering})`,
    ]);
    expect(
      lines.slice(header + 2).filter((line) => line.startsWith('  ') && !line.includes('Azurite')),
    ).toEqual([]);
  });

  it('names the connector it does not know', async () => {
    await expect(run(reconcileCommand, 'nowhere')).rejects.toThrow(/unknown connector "nowhere"/);
  });
});
