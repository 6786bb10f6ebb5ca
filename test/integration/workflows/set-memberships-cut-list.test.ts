import { beforeAll, describe, expect, it } from 'vitest';
import { importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';

/**
 * setMemberships on a SCIM server that cannot be asked by the members filter and cuts long
 * member lists short (scim-interop.md): the account's absence from a managed group rests on
 * a list that does not show everyone. A read never cancels a write (DESIGN invariant 9): the
 * removal is sent, and what could not be told is said. Judged on the sandbox's truth.
 */
const bench = useServiceBench();
const ACCOUNT = 'cut.user';
let everyone = '';
let wanted = '';

beforeAll(async () => {
  const { scim } = bench.sandboxes;
  scim.seedUsers([
    { userName: 'first.member' },
    { userName: 'second.member' },
    { userName: ACCOUNT },
  ]);
  // A big group: the server shows its first two members only, and the account comes third.
  // Groups without members show no member list on a server like this: both hold someone.
  const [big, small] = scim.seedGroups([
    { displayName: 'Everyone', members: ['first.member', 'second.member', ACCOUNT] },
    { displayName: 'Wanted', members: ['first.member'] },
  ]);
  everyone = big!.id;
  wanted = small!.id;
  await importCatalogue(bench, SCIM);
  scim.setQuirks({ lastLogonAttribute: 'lastLogin', membersFilter: 'refused', maxMembersShown: 2 });
});

describe('setMemberships against member lists cut short', () => {
  it('removes the account from a managed group its cut list does not show, and says it could not tell', async () => {
    const { scim } = bench.sandboxes;
    expect(scim.groupIdsOf(ACCOUNT)).toEqual([everyone]);

    const report = await bench.run({
      requestId: 'cut-1',
      connector: SCIM,
      account: { accountId: ACCOUNT },
      actions: [{ type: 'setMemberships', groups: ['Wanted'] }],
    });

    // The truth: out of the group the list hid it in, into the one asked for; the other
    // member untouched.
    expect(scim.groupIdsOf(ACCOUNT), JSON.stringify(report.steps)).toEqual([wanted]);
    expect(scim.groupIdsOf('first.member').sort()).toEqual([everyone, wanted].sort());
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    const notices = report.steps[0]!.notices.join('\n');
    expect(notices).toContain('whether the account was a member before could not be told');
    expect(notices).toContain(`Everyone (${everyone})`);
    expect(notices).not.toMatch(/already as requested[^\n]*Everyone/);
    // Only what the answers prove reaches the journal: the grant, not the untold removal.
    const journal = await bench.journal(SCIM, ACCOUNT);
    expect(journal.map((entry) => `${entry.change} ${entry.groupName ?? ''}`)).toEqual([
      'member added Wanted',
    ]);
  });
});
