import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * scim-interop.md, "no cheap way to check membership of large groups": the connector asks
 * the server about one member (`id eq "g" and members eq "u"`), reading a group whole only
 * where the server cannot be asked. How the server is asked is decided by a probe at the
 * first membership check of the connector.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const BIG = 100_000;

async function bigGroup(quirks: ScimQuirks = {}) {
  target = await startScimTarget({ quirks });
  const members = Array.from({ length: BIG }, (_, i) => `member.${i}`);
  const [big] = target.sandbox.seedGroups([{ displayName: 'All Employees', members }]);
  const [small] = target.sandbox.seedGroups([{ displayName: 'Team', members: ['lead.one'] }]);
  const account = await createdAccount(target.connector, { accountId: 'new.hire' });
  return { t: target, bigId: big!.id, smallId: small!.id, account };
}

const wholeReads = (t: ScimTarget, groupId: string) =>
  t.sandbox.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/Groups/${groupId}`));

describe('membership checks that do not grow with the group', () => {
  it('grants and revokes in a group of 100,000 members reading a few hundred bytes, never the group', async () => {
    const { t, bigId, smallId, account } = await bigGroup();
    t.sandbox.clearRequests();
    const before = t.sandbox.bytesServed;

    const granted = await runMembership(t.connector, account, 'grant', [bigId, smallId]);
    expect(granted.ok).toBe(true);
    expect(granted.changes.map((c) => c.groupId).sort()).toEqual([bigId, smallId].sort());
    const revoked = await runMembership(t.connector, account, 'revoke', [bigId]);
    expect(revoked.ok).toBe(true);
    expect(revoked.changes).toEqual([expect.objectContaining({ change: 'member removed' })]);

    // The truth: the account left the big group again, the other 100,000 stayed.
    expect(t.sandbox.getGroup(bigId)?.members).toHaveLength(BIG);
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([smallId]);
    expect(t.connector.membershipCheck).toEqual({ kind: 'filter', combine: true });
    expect(wholeReads(t, bigId)).toEqual([]);
    // Both groups asked about in one call, and the PATCH answers leave the members out.
    const combined = t.sandbox.requests.find((r) => r.query.filter?.includes('new.hire'));
    expect(combined?.query.filter).toBe(
      `(id eq "${bigId}" or id eq "${smallId}") and (members eq "new.hire" or members eq "${account.id}")`,
    );
    for (const patch of t.sandbox.requests.filter((r) => r.method === 'PATCH')) {
      expect(patch.query).toEqual({ excludedAttributes: 'members' });
    }
    expect(t.sandbox.bytesServed - before).toBeLessThan(10_000);
  });

  it('reads the group whole on a server that ignores the member clause, and still journals only what changed', async () => {
    const { t, smallId, account } = await bigGroup({ membersFilter: 'ignored' });
    // The filter would say "member" for anyone: a grant that believed it would journal nothing.
    const granted = await runMembership(t.connector, account, 'grant', [smallId]);
    expect(t.connector.membershipCheck).toMatchObject({
      kind: 'whole group',
      why: expect.stringContaining('ignores the member clause'),
    });
    expect(granted.changes).toEqual([expect.objectContaining({ change: 'member added' })]);
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([smallId]);
    // Read whole before the PATCH and after it: its answer, though it lists the members, is
    // not believed (a server may answer from the request).
    expect(wholeReads(t, smallId)).toHaveLength(2);
    const again = await runMembership(t.connector, account, 'grant', [smallId]);
    expect(again.changes).toEqual([]);
  });

  it('on a server whose filter misses every member, a grant is confirmed from the group, which turns the connector to whole-group reads', async () => {
    const { t, smallId, account } = await bigGroup({ membersFilter: 'blind' });
    const granted = await runMembership(t.connector, account, 'grant', [smallId]);
    // The truth: the account is in the group; the filter's "not a member" was not believed.
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([smallId]);
    expect(granted.ok).toBe(true);
    expect(granted.notices).toContainEqual(expect.stringContaining('whole group from now on'));
    expect(t.connector.membershipCheck).toMatchObject({
      kind: 'whole group',
      why: expect.stringContaining(
        `is not a member of group Team (${smallId}), whose member list shows it`,
      ),
    });
  });

  it('says it could not tell where a "not a member" rests on the filter alone: not yet seen to match, and no member list to confirm it', async () => {
    const { t, smallId, account } = await bigGroup({ omitMembers: true });
    const revoked = await runMembership(t.connector, account, 'revoke', [smallId]);
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([]);
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('rests on the members filter alone'),
    });
    expect(revoked.changes).toEqual([]);
    expect(t.connector.membershipCheck).toEqual({ kind: 'filter', combine: true });
  });

  it("verifies such a revoke where the user's groups attribute vouches for the absence", async () => {
    const { t, smallId, account } = await bigGroup({ omitMembers: true, userGroups: 'served' });
    // Granted first: the user's groups list the group, which lets their silence be believed.
    expect((await runMembership(t.connector, account, 'grant', [smallId])).ok).toBe(true);
    const revoked = await runMembership(t.connector, account, 'revoke', [smallId]);
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([]);
    expect(revoked.ok).toBe(true);
    expect(revoked.changes).toEqual([expect.objectContaining({ change: 'member removed' })]);
  });

  it('reads the group whole on a server that refuses the members filter', async () => {
    const { t, smallId, account } = await bigGroup({ membersFilter: 'refused' });
    const granted = await runMembership(t.connector, account, 'grant', [smallId]);
    expect(granted.ok).toBe(true);
    expect(granted.changes).toHaveLength(1);
    expect(t.connector.membershipCheck).toMatchObject({
      kind: 'whole group',
      why: expect.stringContaining('refuses the members filter (400)'),
    });
  });

  it('cannot tell a membership on a server that refuses the filter and returns no members: the grant is sent, and the step says it could not tell', async () => {
    const { t, smallId, account } = await bigGroup({
      membersFilter: 'refused',
      omitMembers: true,
    });
    const granted = await runMembership(t.connector, account, 'grant', [smallId]);
    // A read never cancels a write (DESIGN invariant 9): the grant was applied.
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([smallId]);
    expect(granted.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      details: { untold: [{ id: smallId, name: 'Team' }] },
      message: expect.stringContaining('refuses the members filter'),
    });
    expect(granted.changes).toEqual([]);
  });
});

describe('a members filter answered on pages smaller than the groups asked', () => {
  it('reads the pages its totalResults promises: every group the account is in, per the sandbox', async () => {
    target = await startScimTarget({ quirks: { maxCount: 3 } });
    const [user] = target.sandbox.seedUsers([{ userName: 'ada' }]);
    const groups = target.sandbox.seedGroups(
      Array.from({ length: 8 }, (_, i) => ({ displayName: `G${i}`, members: [user!.id] })),
    );
    const ids = groups.map((g) => g.id);
    const account = { id: user!.id, accountId: 'ada', enabled: true };
    // The truth: the account is a member of all 8.
    for (const id of ids) {
      expect(
        (target.sandbox.getGroup(id)!.members as { value: string }[]).map((m) => m.value),
      ).toContain(user!.id);
    }
    // Twice: the first read decides how memberships are checked, the second believes it.
    for (let i = 0; i < 2; i++) {
      const read = await target.connector.readMemberships(account, ids);
      expect(target.connector.membershipCheck).toMatchObject({ kind: 'filter' });
      expect([...read.groupIds].sort()).toEqual([...ids].sort());
    }
  });
});
