import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * A group may hold an account under its SCIM `id` (RFC 7643's `members.value`, what Entra,
 * Okta and admin screens write) or under its userName (the spec's default), and a lax server
 * takes both. Whatever the connector's member-value setting and however memberships are read,
 * a membership held in the other form is a membership: a revoke removes it, and a recheck of
 * reconciliation sees it. Judged on the sandbox's truth (`groupIdsOf` counts both forms).
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const members = (t: ScimTarget, groupId: string) =>
  ((t.sandbox.getGroup(groupId)?.members as Array<{ value: string }> | undefined) ?? []).map(
    (member) => member.value,
  );

describe.each<[string, ScimQuirks, Record<string, unknown>]>([
  ['members filter, account ID setting', {}, {}],
  // The user's groups vouch for the absence the revoke leaves (a list may be cut short).
  ['group read whole, account ID setting', { membersFilter: 'refused', userGroups: 'served' }, {}],
  ['members filter, SCIM id setting', {}, { memberValue: 'scimId' }],
  [
    'group read whole, SCIM id setting',
    { membersFilter: 'refused', userGroups: 'served' },
    { memberValue: 'scimId' },
  ],
  [
    'Entra-style removal, SCIM id setting',
    { memberRemoveStyle: 'valueArray' },
    { memberValue: 'scimId', memberRemoveStyle: 'valueArray' },
  ],
])('a membership held in the form the setting does not write (%s)', (_name, quirks, settings) => {
  it('is read as held and removed by a revoke', async () => {
    const t = (target = await startScimTarget({ quirks }, settings));
    const account = await createdAccount(t.connector, { accountId: 'Other.Form' });
    // The form additions under this setting do not write.
    const other = settings.memberValue === 'scimId' ? 'Other.Form' : account.id;
    const [group] = t.sandbox.seedGroups([
      { displayName: 'Admins', members: ['someone.else', other] },
    ]);
    expect(t.sandbox.groupIdsOf(account.id)).toEqual([group!.id]);

    const read = await t.connector.readMemberships(account, [group!.id]);
    expect(read.groupIds).toEqual([group!.id]);

    const revoked = await runMembership(t.connector, account, 'revoke', [group!.id]);
    expect(t.sandbox.groupIdsOf(account.id)).toEqual([]);
    expect(members(t, group!.id)).toEqual(['someone.else']);
    expect(revoked.error).toBeUndefined();
    expect(revoked.changes).toEqual([expect.objectContaining({ change: 'member removed' })]);
  });
});

describe('a membership held in a form the server will not remove', () => {
  it('fails the revoke naming the group and the value, and leaves nothing reported removed', async () => {
    // A server that takes only its own ids, strict since after members were added by userName.
    const t = (target = await startScimTarget(
      { quirks: { memberRemovalsMustBeInternalIds: true } },
      { memberValue: 'scimId' },
    ));
    const account = await createdAccount(t.connector, { accountId: 'stuck.member' });
    const [group] = t.sandbox.seedGroups([{ displayName: 'Legacy', members: ['stuck.member'] }]);

    const revoked = await runMembership(t.connector, account, 'revoke', [group!.id]);

    // The truth: the membership stays, as the server would not remove it.
    expect(t.sandbox.groupIdsOf(account.id)).toEqual([group!.id]);
    expect(revoked.ok).toBe(false);
    expect(revoked.changes).toEqual([]);
    expect(revoked.error).toMatchObject({ code: 'SCIM_INVALID_VALUE', object: group!.id });
    expect(revoked.error?.message).toContain(`group Legacy (${group!.id}) holds account`);
    expect(revoked.error?.message).toContain('under its account ID "stuck.member"');
  });
});

describe('the members filter on a server that evaluates "or"', () => {
  it('asks about both forms in one call', async () => {
    const t = (target = await startScimTarget());
    const account = await createdAccount(t.connector, { accountId: 'no.or' });
    const [group] = t.sandbox.seedGroups([{ displayName: 'Ops', members: [account.id] }]);
    t.sandbox.clearRequests();

    const read = await t.connector.readMemberships(account, [group!.id]);

    expect(read.groupIds).toEqual([group!.id]);
    const asked = t.sandbox.requests
      .filter((r) => r.method === 'GET' && r.query.filter?.includes('members eq') === true)
      .map((r) => r.query.filter);
    expect(asked).toContain(
      `id eq "${group!.id}" and (members eq "no.or" or members eq "${account.id}")`,
    );
  });
});

describe('the second read of reconciliation', () => {
  it.each<[string, ScimQuirks]>([
    ['members filter', {}],
    ['group read whole', { membersFilter: 'refused' }],
  ])('sees a membership held under the SCIM id (%s)', async (_name, quirks) => {
    const t = (target = await startScimTarget({ quirks }));
    const [user] = t.sandbox.seedUsers([{ userName: 'by.id' }]);
    const [group] = t.sandbox.seedGroups([{ displayName: 'Team', members: [user!.id] }]);
    expect(t.sandbox.groupIdsOf('by.id')).toEqual([group!.id]);

    const [answer] = await t.connector.reconciliation.recheck([
      { targetId: user!.id, key: 'by.id', groupIds: [group!.id], account: true },
    ]);

    expect(answer?.memberOf[group!.id]).toBe(true);
    expect(answer?.evidence.join('\n')).toContain(user!.id);
  });
});
