import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
  expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
  expect((await t.importCatalogue('graph-sandbox')).status).toBe('succeeded');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A rename by the SCIM server's own administrator, outside the service. */
async function renameOnTarget(from: string, to: string): Promise<string> {
  const scim = t.host.sandboxes!.scim;
  const group = scim.getGroup(from) as { id: string };
  const token = t.host.sandboxes!.secrets['scim-sandbox-token'];
  const response = await fetch(`${scim.endpoint}/Groups/${group.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: to }],
    }),
  });
  expect(response.status).toBeLessThan(300);
  return group.id;
}

async function run(
  requestId: string,
  accountId: string,
  actions: unknown[],
  connector = 'scim-sandbox',
) {
  const answer = await t.api('POST', '/api/requests', {
    requestId,
    connector,
    account: { accountId, displayName: accountId },
    actions,
  });
  expect(answer.status).toBe(202);
  return t.finished(requestId);
}

const membersOf = (group: string): string[] =>
  ((t.host.sandboxes!.scim.getGroup(group) as { members?: { value: string }[] }).members ?? []).map(
    (member) => member.value,
  );

describe('a group renamed on the target after the last catalogue import', () => {
  it('says which group the write went to, by the name the target has now', async () => {
    expect((await run('renamed-create', 'renamed.ann', [{ type: 'create' }])).status).toBe(
      'succeeded',
    );
    const id = await renameOnTarget('Sales', 'Domain Admins');

    const report = await run('renamed-grant', 'renamed.ann', [
      { type: 'grant', groups: ['Sales'] },
    ]);
    // The target's truth: the account the request named "Sales" for sits in the group the
    // server now calls "Domain Admins" (written by id, as the catalogue knows it).
    expect(membersOf('Domain Admins')).toContain('renamed.ann');
    const [step] = report.steps;
    expect(step.changes).toEqual([
      expect.objectContaining({ change: 'member added', groupId: id, groupName: 'Domain Admins' }),
    ]);
    // ...and the report says so, instead of a plain "member added" for a request for "Sales".
    expect(step.notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`group Sales (${id}) is named "Domain Admins" on the target`),
      ]),
    );
  }, 60_000);

  it('says nothing once an import has seen the rename (the role keeps its name in the service)', async () => {
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
    const report = await run('renamed-known', 'renamed.bob', [
      { type: 'create' },
      { type: 'grant', groups: ['Sales'] },
    ]);
    expect(report.status).toBe('succeeded');
    expect(membersOf('Domain Admins')).toContain('renamed.bob');
    expect(report.steps[1].notices.join('\n')).not.toContain('on the target: renamed');
  }, 60_000);

  it('says so on Graph too, by the name its read back shows', async () => {
    const accountId = 'renamed.cy@contoso.example';
    expect(
      (await run('renamed-graph-create', accountId, [{ type: 'create' }], 'graph-sandbox')).status,
    ).toBe('succeeded');
    const id = t.host.sandboxes!.graphGroups['Support']!;
    // The directory's own administrators rename it (the sandbox's admin side, as the admin
    // center would), outside the service.
    t.host.sandboxes!.graph.updateGroup(id, { displayName: 'Tier 0 Operators' });
    const report = await run(
      'renamed-graph-grant',
      accountId,
      [{ type: 'grant', groups: ['Support'] }],
      'graph-sandbox',
    );
    // The target's truth: the account is a direct member of the group now "Tier 0 Operators".
    const truth = t.host.sandboxes!.graph.truthLog().filter((e) => e.accountId === accountId);
    expect(truth).toEqual(
      expect.arrayContaining([expect.objectContaining({ change: 'member added', groupId: id })]),
    );
    expect(report.steps[0].notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`group Support (${id}) is named "Tier 0 Operators" on the target`),
      ]),
    );
  }, 60_000);
});
