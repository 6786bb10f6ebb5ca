import { beforeAll, describe, expect, it } from 'vitest';
import { SCIM, importCatalogue, useServiceBench } from '../../support/service-bench';

/**
 * RFC 7643 makes a group's `members.value` the User's `id`, and Entra, Okta and application
 * admin screens write members that way; a lax server (the sandbox's default) also takes the
 * userName the service writes by default. A group may then hold a member under either form,
 * and a revoke must remove it in the form it is held: access left in place and reported as
 * removed is the worst defect. Judged on the sandbox's truth (`groupIdsOf` counts both forms).
 */
const bench = useServiceBench();
let groups: Record<string, string>;
let ids: Record<string, string>;

beforeAll(async () => {
  const scim = bench.sandboxes.scim;
  const users = scim.seedUsers([
    { userName: 'held.by.id' },
    { userName: 'held.twice' },
    { userName: 'granted.by.id' },
  ]);
  ids = Object.fromEntries(users.map((user) => [user.userName, user.id]));
  const seeded = scim.seedGroups([
    { displayName: 'Admins by id', members: [ids['held.by.id']!, 'someone.else'] },
    { displayName: 'Both forms', members: [ids['held.twice']!, 'held.twice'] },
    { displayName: 'Granted by id', members: [ids['granted.by.id']!] },
  ]);
  groups = Object.fromEntries(seeded.map((group) => [group.displayName, group.id]));
  await importCatalogue(bench, SCIM);
});

const journalOf = async (accountId: string, requestId: string) =>
  (await bench.journal(SCIM, accountId))
    .filter((entry) => entry.requestId === requestId)
    .map((entry) => `${entry.change} ${entry.groupName ?? ''}`.trim());
const memberValues = (groupName: string) =>
  (
    (bench.sandboxes.scim.getGroup(groups[groupName]!)?.members as
      Array<{ value: string }> | undefined) ?? []
  ).map((member) => member.value);

describe('a membership held under the SCIM id, on a server that takes userNames too', () => {
  it('a revoke removes it, and journals the removal', async () => {
    const requestId = 'held.by.id-1';
    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId: 'held.by.id' },
      actions: [{ type: 'revoke', groups: ['Admins by id'] }],
    });

    expect(bench.sandboxes.scim.groupIdsOf('held.by.id')).toEqual([]);
    expect(memberValues('Admins by id')).toEqual(['someone.else']);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(await journalOf('held.by.id', requestId)).toEqual(['member removed Admins by id']);
  });

  it('a revoke removes a membership held under both forms', async () => {
    const requestId = 'held.twice-1';
    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId: 'held.twice' },
      actions: [{ type: 'revoke', groups: ['Both forms'] }],
    });

    expect(bench.sandboxes.scim.groupIdsOf('held.twice')).toEqual([]);
    expect(memberValues('Both forms')).toEqual([]);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(await journalOf('held.twice', requestId)).toEqual(['member removed Both forms']);
  });

  it('a grant finds it held and adds no second member in the other form', async () => {
    const requestId = 'granted.by.id-1';
    const report = await bench.run({
      requestId,
      connector: SCIM,
      account: { accountId: 'granted.by.id' },
      actions: [{ type: 'grant', groups: ['Granted by id'] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(bench.sandboxes.scim.groupIdsOf('granted.by.id')).toEqual([groups['Granted by id']]);
    expect(await journalOf('granted.by.id', requestId)).toEqual([]);
    expect(report.steps[0]?.notices.join(' ')).toContain('already as requested');
  });
});
