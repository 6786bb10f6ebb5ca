import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../src/sandbox/scim';
import { gist, provision, reconcile, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A SCIM server that keeps member values in lower case (scim-interop.md; RFC 7643 compares
 * userNames without case): the account `Ada.Lovelace` is listed as `ada.lovelace`. Its
 * memberships compare as the request path compares them, so a reconciliation reports no
 * drift where there is none, and the one outside change there is.
 */
const SCIM = 'scim-sandbox';
let t: TestHost | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

const total = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, count) => sum + count, 0);

describe.each<[string, ScimQuirks]>([
  ['members filter', { memberValuesLowercased: true }],
  ['group read whole', { memberValuesLowercased: true, membersFilter: 'refused' }],
])('reconciliation on a server that keeps member values in lower case (%s)', (_name, quirks) => {
  it('reports no drift for memberships the service made, and finds the one made by hand', async () => {
    t = await startTestHost();
    t.host.sandboxes!.scim.setQuirks(quirks);
    await runJob(t, `/api/connectors/${SCIM}/imports`, {});
    // A group with a member: an empty one returns no member list to read whole.
    const admin = scimAdmin(t);
    await admin.createUser('someone');
    await admin.addMember(t.host.sandboxes!.scimGroups['Engineering']!, 'someone');
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'Ada.Lovelace', displayName: 'Ada Lovelace' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
    });
    // Beyond the settle window: the request above is history, not in flight.
    t.clock.advanceBy(5 * 60_000);
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    // The truth: the server lists the member in lower case.
    const engineering = sandboxes.scim.getGroup(groups['Engineering']!) as {
      members?: { value: string }[];
    };
    expect(engineering.members?.map((member) => member.value)).toContain('ada.lovelace');

    const quiet = await reconcile(t, SCIM);
    // Read whole, the groups left empty cannot be told apart from unread ones; these two are read.
    const read = (result: { incomplete: string[] }, name: string) =>
      expect(result.incomplete.join('\n')).not.toContain(groups[name]!);
    read(quiet, 'Engineering');
    // Not even a candidate for the second read to refute: the first read shows no drift but
    // the member the service does not know.
    expect(quiet.unconfirmed.count, JSON.stringify(quiet)).toBe(0);
    expect(total(quiet.found), JSON.stringify(quiet)).toBe(1);
    const unlinked = { type: 'unlinkedMember', groupName: 'Engineering', memberName: 'someone' };
    expect((await report(t, SCIM)).map(gist)).toEqual([unlinked]);

    await admin.addMember(groups['Finance']!, 'Ada.Lovelace');
    expect(sandboxes.scim.groupIdsOf('Ada.Lovelace').sort()).toEqual(
      [groups['Engineering']!, groups['Finance']!].sort(),
    );
    t.clock.advanceBy(60_000);
    const found = await reconcile(t, SCIM);
    read(found, 'Finance');
    expect(found.unconfirmed.count, JSON.stringify(found)).toBe(0);
    expect((await report(t, SCIM)).map(gist)).toEqual([
      { type: 'memberAddedOutside', accountId: 'Ada.Lovelace', groupName: 'Finance' },
      unlinked,
    ]);
  }, 120_000);
});

describe('reconciliation on a server that keeps member values as sent and compares them exactly', () => {
  it('asks the second read about the member as the target spells it, and confirms the outside change', async () => {
    t = await startTestHost();
    await runJob(t, `/api/connectors/${SCIM}/imports`, {});
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'Ada.Lovelace', displayName: 'Ada Lovelace' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
    });
    const sandboxes = t.host.sandboxes!;
    const groups = sandboxes.scimGroups;
    await scimAdmin(t).addMember(groups['Finance']!, 'Ada.Lovelace');
    // The truth: the server lists the member as the service and the admin wrote it.
    const finance = sandboxes.scim.getGroup(groups['Finance']!) as {
      members?: { value: string }[];
    };
    expect(finance.members?.map((member) => member.value)).toEqual(['Ada.Lovelace']);
    t.clock.advanceBy(5 * 60_000);
    sandboxes.scim.clearRequests();

    const found = await reconcile(t, SCIM);
    expect(found.unconfirmed.count, JSON.stringify(found)).toBe(0);
    expect((await report(t, SCIM)).map(gist)).toEqual([
      { type: 'memberAddedOutside', accountId: 'Ada.Lovelace', groupName: 'Finance' },
    ]);
    const asked = sandboxes.scim.requests
      .map((request) => request.query.filter ?? '')
      .filter((filter) => filter.includes('members eq'));
    // Asked about the member as the target spells it (in either member-value form).
    expect(
      asked.some(
        (filter) =>
          filter.includes(`id eq "${groups['Finance']!}"`) &&
          filter.includes('members eq "Ada.Lovelace"'),
      ),
      asked.join('\n'),
    ).toBe(true);
    expect(asked.join('\n')).not.toContain('members eq "ada.lovelace"');
  }, 120_000);
});
