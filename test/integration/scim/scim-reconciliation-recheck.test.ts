import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/*
 * Reconciliation's second read (issue 18) asks the server about one member, as membership
 * reads do, and only where the server was found to evaluate the members filter: a server
 * that ignores the member clause names the group for anyone, and a "member" read from it
 * would confirm a finding the target does not hold (DESIGN invariant 11).
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function recheckOutsider(quirks: ScimQuirks) {
  target = await startScimTarget({ quirks });
  target.sandbox.seedUsers([{ userName: 'in.group' }, { userName: 'outsider' }]);
  const [group] = target.sandbox.seedGroups([{ displayName: 'Team', members: ['in.group'] }]);
  const [answer] = await target.connector.reconciliation.recheck([
    { targetId: 'outsider', key: 'outsider', groupIds: [group!.id], account: false },
    { targetId: 'in.group', key: 'in.group', groupIds: [group!.id], account: false },
  ]);
  const [member] = await target.connector.reconciliation.recheck([
    { targetId: 'in.group', key: 'in.group', groupIds: [group!.id], account: false },
  ]);
  return { groupId: group!.id, outsider: answer!, member: member!, sandbox: target.sandbox };
}

describe('the second read of reconciliation', () => {
  it('never takes a member from a server that ignores the member clause', async () => {
    const { groupId, outsider, member, sandbox } = await recheckOutsider({
      membersFilter: 'ignored',
    });
    // The truth: the outsider is in no group.
    expect(sandbox.groupIdsOf('outsider')).toEqual([]);
    expect(outsider.memberOf[groupId]).not.toBe(true);
    // The member is seen in the group's own member list instead.
    expect(member.memberOf[groupId]).toBe(true);
    expect(member.evidence.join('\n')).toContain('lists "in.group"');
  });

  it('asks the server about the one member where it evaluates the filter', async () => {
    const { groupId, outsider, member } = await recheckOutsider({});
    expect(outsider.memberOf[groupId]).toBe(false);
    expect(member.memberOf[groupId]).toBe(true);
    expect(member.evidence.join('\n')).toContain('members eq "in.group": a member');
  });

  it('takes no "not a member" from a filter blind to members: the member list shows it, and the connector reads whole groups', async () => {
    const { groupId, outsider, member, sandbox } = await recheckOutsider({
      membersFilter: 'blind',
    });
    // The truth: the member is in the group, the outsider is not.
    expect(sandbox.groupIdsOf('in.group')).toEqual([groupId]);
    expect(member.memberOf[groupId]).toBe(true);
    expect(member.evidence.join('\n')).toContain('lists "in.group"');
    expect(outsider.memberOf[groupId]).not.toBe(true);
    expect(target!.connector.membershipCheck).toMatchObject({
      kind: 'whole group',
      why: expect.stringContaining(
        `"in.group" is not a member of group ${groupId}, whose member list shows it`,
      ),
    });
  });
});
