import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { truthChanges, truthMark } from '../../support/journal-truth';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * A server that keeps member values in lower case (scim-interop.md: case differences; RFC
 * 7643 compares userNames case-insensitively): the account `Case.Sensitive` is listed as
 * `case.sensitive`. Its grants and revokes must be seen, verified and journaled as the
 * truth log shows them, whichever way memberships are read.
 */

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe.each<[string, ScimQuirks]>([
  [
    'group read whole',
    { memberValuesLowercased: true, membersFilter: 'refused', userGroups: 'served' },
  ],
  ['members filter', { memberValuesLowercased: true }],
])('member values kept in lower case (%s)', (_name, quirks) => {
  it('a grant and a revoke: each verified and journaled as the truth shows it', async () => {
    const t = (target = await startScimTarget({ quirks }));
    // A group with a member: an empty one returns no member list to read whole.
    const [group] = t.sandbox.seedGroups([{ displayName: 'Team', members: ['someone'] }]);
    const account = await createdAccount(t.connector, { accountId: 'Case.Sensitive' });

    let since = truthMark(t.sandbox.truthLog());
    const granted = await runMembership(t.connector, account, 'grant', [group!.id]);
    expect(truthChanges(t.sandbox.truthLog(), since)).toEqual([
      `case.sensitive member added ${group!.id}`,
    ]);
    expect(granted.error).toBeUndefined();
    expect(granted.changes).toEqual([expect.objectContaining({ change: 'member added' })]);

    since = truthMark(t.sandbox.truthLog());
    const revoked = await runMembership(t.connector, account, 'revoke', [group!.id]);
    expect(truthChanges(t.sandbox.truthLog(), since)).toEqual([
      `case.sensitive member removed ${group!.id}`,
    ]);
    expect(revoked.error).toBeUndefined();
    expect(revoked.changes).toEqual([expect.objectContaining({ change: 'member removed' })]);
  });
});
