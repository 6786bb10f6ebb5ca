import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { runMembership } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/*
 * The members filter's answer on a server that caps its pages (`maxCount`) and counts only
 * the page it answers in `totalResults` (scim-interop.md; `totalResultsIsPageSize`): a capped
 * page cannot be told from a whole answer, so the answer is read on past it, and the
 * account's groups on later pages are never taken for "not a member" (DESIGN invariant 11).
 * An honest server pays no page more where the answer holds every group asked or none.
 * Judged by the sandbox's stored groups and the requests it received (review 11).
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const GROUPS = 8;

/** `ada`, in `inGroups` of 8 groups (all by default). */
async function eightGroups(quirks: ScimQuirks, inGroups = GROUPS) {
  target = await startScimTarget({ quirks });
  const [user] = target.sandbox.seedUsers([{ userName: 'ada' }]);
  const groups = target.sandbox.seedGroups(
    Array.from({ length: GROUPS }, (_, i) => ({
      displayName: `G${i}`,
      members: i < inGroups ? ['ada'] : [],
    })),
  );
  const ids = groups.map((g) => g.id);
  target.sandbox.clearRequests();
  return { t: target, ids, account: { id: user!.id, accountId: 'ada', enabled: true } };
}

/** The members filter GETs the sandbox received, as their startIndex and count. */
const filterCalls = (t: ScimTarget) =>
  t.sandbox.requests
    .filter((r) => r.method === 'GET' && r.query.filter?.includes('members eq "ada"'))
    .map((r) => ({ startIndex: r.query.startIndex, count: r.query.count }));

const CAPPED: ScimQuirks = { maxCount: 3, totalResultsIsPageSize: true };

describe('the members filter on a server that caps pages and counts only the page', () => {
  it('reads every group the account is in, and asks for as many as the groups asked', async () => {
    const { t, ids, account } = await eightGroups(CAPPED);
    expect(t.sandbox.groupIdsOf('ada').sort()).toEqual([...ids].sort());
    for (let i = 0; i < 2; i++) {
      const read = await t.connector.readMemberships(account, ids);
      expect([...read.groupIds].sort()).toEqual([...ids].sort());
    }
    expect(t.connector.membershipCheck).toEqual({ kind: 'filter', combine: true });
    expect(filterCalls(t)[0]).toEqual({ startIndex: undefined, count: String(GROUPS) });
  });

  it('takes no group on a later page for "not a member"', async () => {
    const { t, ids, account } = await eightGroups(CAPPED, 5);
    const read = await t.connector.readMemberships(account, ids, ids);
    expect([...read.groupIds].sort()).toEqual(t.sandbox.groupIdsOf('ada').sort());
    expect(read.groupIds).toHaveLength(5);
  });

  it('grants 8 groups the account is already in: nothing to change, no mismatch', async () => {
    const { t, ids, account } = await eightGroups(CAPPED);
    const granted = await runMembership(t.connector, account, 'grant', ids);
    expect(granted.error).toBeUndefined();
    expect(granted.ok).toBe(true);
    expect(granted.changes).toEqual([]);
    expect(t.sandbox.groupIdsOf('ada').sort()).toEqual([...ids].sort());
  });

  it('revokes 8 groups and journals every removal made', async () => {
    const { t, ids, account } = await eightGroups(CAPPED);
    const revoked = await runMembership(t.connector, account, 'revoke', ids);
    expect(t.sandbox.groupIdsOf('ada')).toEqual([]);
    expect(revoked.ok).toBe(true);
    expect(revoked.changes.map((c) => `${c.change} ${c.groupId}`).sort()).toEqual(
      ids.map((id) => `member removed ${id}`).sort(),
    );
  });

  it('vouches for no absence where the pages repeat (startIndex ignored)', async () => {
    const { t, ids, account } = await eightGroups({ ...CAPPED, ignoreStartIndex: true }, 5);
    // Pages repeat: the answer's end is never seen, and groups past the first page are unread.
    const first = await t.connector.readMemberships(account, ids.slice(0, 1));
    expect(first.groupIds).toEqual([ids[0]]);
    const read = await t.connector.readMemberships(account, ids);
    expect(read.absenceVouched).toBeUndefined();
    expect(read.notices).toContainEqual(expect.stringContaining('may be cut short'));
  });
});

describe('the members filter on an honest server', () => {
  it.each([
    ['every group asked', GROUPS],
    ['none of the groups asked', 0],
  ])('answers with one GET where the account is in %s', async (_, inGroups) => {
    const { t, ids, account } = await eightGroups({}, inGroups);
    await t.connector.readMemberships(account, ids.slice(0, 1));
    t.sandbox.clearRequests();
    const read = await t.connector.readMemberships(account, ids);
    expect(read.groupIds).toHaveLength(inGroups);
    expect(filterCalls(t)).toEqual([{ startIndex: undefined, count: String(GROUPS) }]);
  });

  it('reads one page past an answer that holds some of the groups asked, and no more', async () => {
    const { t, ids, account } = await eightGroups({}, 5);
    await t.connector.readMemberships(account, ids.slice(0, 1));
    t.sandbox.clearRequests();
    const read = await t.connector.readMemberships(account, ids);
    expect(read.groupIds).toHaveLength(5);
    expect(read.absenceVouched).toBe(true);
    expect(filterCalls(t)).toEqual([
      { startIndex: undefined, count: String(GROUPS) },
      { startIndex: '6', count: String(GROUPS) },
    ]);
  });
});
