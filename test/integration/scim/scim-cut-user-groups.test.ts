import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { TOKEN, startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * RFC 7643 §4.1.2: a user's `groups` lists its groups, but servers cap the attribute (or
 * serve its first page) and say nothing about it. A group it lists is a membership; a group
 * it leaves out is a non-membership only where the list is known complete. Over real
 * sockets to the SCIM sandbox, judged by the groups it stores.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/**
 * No members filter, groups that show at most two members, and users whose `groups` lists
 * at most `cap` of their groups.
 */
const cutAt = (cap: number): ScimQuirks => ({
  membersFilter: 'refused',
  maxMembersShown: 2,
  userGroups: 'served',
  maxUserGroupsShown: cap,
});

/**
 * Account "new.hire" in two small groups (their lists show it), and a big group after them
 * whose cut member list never shows it; a member of it too where `inBig`.
 */
async function seeded(quirks: ScimQuirks, inBig: boolean) {
  target = await startScimTarget({ quirks });
  const others = ['member.one', 'member.two', 'member.three'];
  const [first, second, big] = target.sandbox.seedGroups([
    { displayName: 'Team', members: ['new.hire'] },
    { displayName: 'Floor 3', members: ['new.hire'] },
    { displayName: 'All Staff', members: inBig ? [...others, 'new.hire'] : others },
  ]);
  const account = await createdAccount(target.connector, { accountId: 'new.hire' });
  return { t: target, small: [first!.id, second!.id], bigId: big!.id, account };
}

describe("the sandbox's cut user groups", () => {
  it('list the first groups only, saying nothing of the cut, while the truth keeps them all', async () => {
    const { t, small, bigId, account } = await seeded(cutAt(2), true);
    const answer = await fetch(`${t.sandbox.endpoint}/Users/${account.id}?attributes=groups`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await answer.json()) as { groups?: { value: string }[] };
    expect(body.groups?.map((group) => group.value)).toEqual(small);
    expect(JSON.stringify(body)).not.toContain(bigId);
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small, bigId].sort());
  });
});

describe("a user's groups list the server cuts short", () => {
  it('a revoke the server does not apply, of a group beyond the cut, is not verified: the step could not tell', async () => {
    const { t, small, bigId, account } = await seeded(cutAt(2), true);
    // The removal is answered 204 and not applied.
    t.sandbox.setQuirks({ ...cutAt(2), ignorePatchOps: true });
    const revoked = await runMembership(t.connector, account, 'revoke', [bigId]);
    // The truth: the account is still a member; neither its groups nor the list showed it.
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small, bigId].sort());
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('the server may cut it short'),
      details: { untold: [{ id: bigId, name: 'All Staff' }] },
    });
    expect(revoked.changes).toEqual([]);
  });

  it('a revoke the server applies, beyond the cut, is sent and still could not tell', async () => {
    const { t, small, bigId, account } = await seeded(cutAt(2), true);
    const revoked = await runMembership(t.connector, account, 'revoke', [bigId]);
    // The removal was sent (the cut list is no reason to skip it) and applied.
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small].sort());
    expect(t.sandbox.truthLog().filter((event) => event.groupId === bigId)).toEqual([
      expect.objectContaining({ change: 'member removed', groupId: bigId }),
    ]);
    expect(revoked.error?.code).toBe('MEMBERSHIP_READ_UNAVAILABLE');
    expect(revoked.changes).toEqual([]);
  });

  it('a grant beyond the cut is not reported missing: the step could not tell', async () => {
    const { t, small, bigId, account } = await seeded(cutAt(2), false);
    const granted = await runMembership(t.connector, account, 'grant', [bigId]);
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small, bigId].sort());
    expect(granted.ok).toBe(false);
    expect(granted.error?.code).toBe('MEMBERSHIP_READ_UNAVAILABLE');
    expect(granted.error?.code).not.toBe('MEMBERSHIP_MISMATCH');
    expect(granted.error?.details).not.toHaveProperty('missing');
    expect(granted.changes).toEqual([]);
  });

  it('a list shorter than the cap still verifies a grant and a revoke, as a complete one does', async () => {
    const { t, small, bigId, account } = await seeded(cutAt(5), false);
    const granted = await runMembership(t.connector, account, 'grant', [bigId]);
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small, bigId].sort());
    expect(granted.ok).toBe(true);
    expect(granted.changes).toEqual([
      expect.objectContaining({ change: 'member added', groupId: bigId }),
    ]);
    const revoked = await runMembership(t.connector, account, 'revoke', [bigId]);
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small].sort());
    expect(revoked.ok).toBe(true);
    expect(revoked.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId: bigId }),
    ]);
  });

  it('a list that once left out a group whose member list shows the account is never believed again', async () => {
    // Users list one group at most: "Team" is listed, "Floor 3" (whose list shows the
    // account) is left out.
    const { t, small, bigId, account } = await seeded(cutAt(1), true);
    const [team, floor] = small;
    const first = await runMembership(t.connector, account, 'grant', [team!, floor!]);
    expect(first.ok).toBe(true);
    // Even a list shorter than the longest seen is no evidence now: after the revoke of
    // "Team" (now empty, so it returns no member list), the user's groups list "Floor 3"
    // alone, never "All Staff".
    const revoked = await runMembership(t.connector, account, 'revoke', [team!, bigId]);
    expect(t.sandbox.groupIdsOf('new.hire')).toEqual([floor!]);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('once left out group Floor 3'),
      details: {
        untold: [
          { id: team!, name: 'Team' },
          { id: bigId, name: 'All Staff' },
        ],
      },
    });
  });
});

describe("a user's groups list cut short, on a server whose members filter finds no one", () => {
  it('a revoke the server does not apply is not taken as done on the filter and the cut list', async () => {
    const quirks: ScimQuirks = { ...cutAt(2), membersFilter: 'blind' };
    const { t, small, bigId, account } = await seeded(quirks, true);
    t.sandbox.setQuirks({ ...quirks, ignorePatchOps: true });
    const revoked = await runMembership(t.connector, account, 'revoke', [bigId]);
    expect(t.sandbox.groupIdsOf('new.hire').sort()).toEqual([...small, bigId].sort());
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      details: { untold: [{ id: bigId, name: 'All Staff' }] },
    });
  });
});

describe("a user's groups list that leaves out groups of one type", () => {
  it('is caught on a grant it does not list, and no later revoke rests on its silence', async () => {
    // Users list no group of the "contractor" type; no cap, so a short list looks complete.
    const quirks: ScimQuirks = {
      membersFilter: 'refused',
      maxMembersShown: 2,
      userGroups: 'served',
      userGroupsLeaveOut: ['Lab', 'Contractors'],
    };
    target = await startScimTarget({ quirks });
    const t = target;
    const [, , , lab, contractors] = t.sandbox.seedGroups([
      { displayName: 'Team', members: ['colleague', 'new.hire'] },
      { displayName: 'Floor 3', members: ['colleague'] },
      { displayName: 'Canteen', members: ['colleague'] },
      { displayName: 'Lab' },
      { displayName: 'Contractors', members: ['member.one', 'member.two', 'new.hire'] },
    ]);
    const colleague = await createdAccount(t.connector, { accountId: 'colleague' });
    const hire = await createdAccount(t.connector, { accountId: 'new.hire' });
    // The colleague's groups list three; the grant's read back sees "Lab" hold the
    // colleague and its groups leave it out.
    const granted = await runMembership(t.connector, colleague, 'grant', [lab!.id]);
    expect(t.sandbox.groupIdsOf('colleague')).toContain(lab!.id);
    expect(granted.ok).toBe(true);
    // The revoke is answered 204 and not applied. The hire's groups list one group, fewer
    // than the colleague's three, and not "Contractors": no cap explains that, the type does.
    t.sandbox.setQuirks({ ...quirks, ignorePatchOps: true });
    const revoked = await runMembership(t.connector, hire, 'revoke', [contractors!.id]);
    expect(t.sandbox.groupIdsOf('new.hire')).toContain(contractors!.id);
    expect(revoked.ok).toBe(false);
    expect(revoked.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      message: expect.stringContaining('once left out group Lab'),
      details: { untold: [{ id: contractors!.id, name: 'Contractors' }] },
    });
  });
});
