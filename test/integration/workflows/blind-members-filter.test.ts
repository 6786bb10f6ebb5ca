import { afterEach, describe, expect, it } from 'vitest';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { SCIM, startServiceBench, type ServiceBench } from '../../support/service-bench';

/**
 * The members filter's probe only shows that a member nobody has matches no group. A server
 * whose filter matches no member at all (scim-interop.md: the member clause evaluated
 * against something else, or an empty answer or 404 for every member filter) passes it. Its
 * "not a member" is believed only once the filter has shown the connector a member; before
 * that, an absence that decides the request is confirmed from the group's member list, and
 * a list showing a member the filter missed turns the connector to whole-group reads.
 *
 * A new service for each case: how a connector reads memberships is decided once per worker.
 * Judged by the sandbox's truth: its committed members and truth log.
 */
let bench: ServiceBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const SCIM_QUIRKS: ScimQuirks = { lastLogonAttribute: 'lastLogin' };
const BLIND: ScimQuirks = { ...SCIM_QUIRKS, membersFilter: 'blind', notFoundOnEmptyFilter: true };

/** A new service whose SCIM sandbox holds `accountId` in a group of two. */
async function memberOfAGroup(accountId: string, quirks: ScimQuirks) {
  bench = await startServiceBench();
  const { scim } = bench.sandboxes;
  scim.seedUsers([{ userName: accountId }]);
  const [group] = scim.seedGroups([
    { displayName: 'Payroll Admins', members: [accountId, 'colleague.one'] },
  ]);
  scim.setQuirks(quirks);
  scim.clearRequests();
  scim.clearTruthLog();
  return { bench, scim, groupId: group!.id };
}

const wholeGroupReads = (requests: readonly { method: string; path: string }[]) =>
  requests.filter((r) => r.method === 'GET' && /\/Groups\/[^/]+$/.test(r.path));

describe('a SCIM server whose members filter never matches a member', () => {
  it('a revoke the server answers 204 and does not apply is not reported succeeded', async () => {
    const accountId = 'blind.ignored';
    const { scim, groupId } = await memberOfAGroup(accountId, {
      ...BLIND,
      ignorePatchOps: true,
    });

    const report = await bench!.run({
      requestId: 'blind-ignored-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Payroll Admins'] }],
    });

    // The truth: the account is still a member, nothing was removed.
    expect(scim.groupIdsOf(accountId)).toEqual([groupId]);
    expect(scim.truthLog()).toEqual([]);
    expect(report.status).toBe('failed');
    expect(report.steps[0]?.error).toMatchObject({
      code: 'MEMBERSHIP_MISMATCH',
      message: expect.stringContaining(`unexpected: Payroll Admins (${groupId})`),
    });
    // Acknowledged by the server, contradicted by the read back: no change is claimed.
    expect(report.steps[0]?.changes ?? []).toEqual([]);
    expect(await bench!.journal(SCIM, accountId)).toEqual([]);
  });

  it('a revoke the server applies succeeds, is journaled, and the connector reads whole groups from then on', async () => {
    const accountId = 'blind.applied';
    // The user's groups vouch for the absence the whole group's list (which may be cut
    // short) cannot.
    const { scim, groupId } = await memberOfAGroup(accountId, { ...BLIND, userGroups: 'served' });

    const report = await bench!.run({
      requestId: 'blind-applied-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Payroll Admins'] }],
    });

    expect(scim.groupIdsOf(accountId)).toEqual([]);
    expect(scim.truthLog()).toEqual([
      expect.objectContaining({ change: 'member removed', groupId, accountId }),
    ]);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    // The read before found the account in the group the filter said it was not in: the
    // removal is the request's change, and the step says why the connector changed its reads.
    expect(report.steps[0]?.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId }),
    ]);
    expect(report.steps[0]?.notices).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `whole group from now on: .*"${accountId}" is not a member of group Payroll Admins \\(${groupId}\\), whose member list shows it`,
        ),
      ),
    );
    const journal = await bench!.journal(SCIM, accountId);
    expect(journal).toEqual([expect.objectContaining({ change: 'member removed', groupId })]);

    // From then on the filter is not asked: a grant reads the group itself.
    scim.clearRequests();
    const again = await bench!.run({
      requestId: 'blind-applied-2',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Payroll Admins'] }],
    });
    expect(again.status).toBe('succeeded');
    expect(scim.groupIdsOf(accountId)).toEqual([groupId]);
    expect(scim.requests.filter((r) => r.query.filter?.includes('members eq'))).toEqual([]);
    expect(wholeGroupReads(scim.requests).length).toBeGreaterThan(0);
  });

  it("the user's groups listing a group the filter said the account is not in: whole groups from then on", async () => {
    const accountId = 'blind.listed';
    bench = await startServiceBench();
    const { scim } = bench.sandboxes;
    scim.seedUsers([{ userName: accountId }]);
    // The group's list shows one member: the account, second, is beyond the cut.
    const [group] = scim.seedGroups([
      { displayName: 'Payroll Admins', members: ['colleague.one', accountId] },
    ]);
    scim.setQuirks({ ...BLIND, userGroups: 'served', maxMembersShown: 1 });
    scim.clearRequests();

    const report = await bench.run({
      requestId: 'blind-listed-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Payroll Admins'] }],
    });
    expect(scim.groupIdsOf(accountId)).toEqual([]);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(report.steps[0]?.notices).toContainEqual(
      expect.stringContaining('whole group from now on'),
    );

    // The filter is not asked again: it was shown to miss a member.
    scim.clearRequests();
    const again = await bench.run({
      requestId: 'blind-listed-2',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Payroll Admins'] }],
    });
    expect(again.status, JSON.stringify(again.steps)).toBe('succeeded');
    expect(scim.groupIdsOf(accountId)).toEqual([group!.id]);
    expect(scim.requests.filter((r) => r.query.filter?.includes('members eq'))).toEqual([]);
  });

  it('a server whose filter works: a grant and a revoke never read the group whole', async () => {
    const accountId = 'filter.works';
    bench = await startServiceBench();
    const { scim } = bench.sandboxes;
    scim.seedUsers([{ userName: accountId }]);
    const [group] = scim.seedGroups([{ displayName: 'Works Group', members: ['colleague.two'] }]);
    scim.setQuirks({ ...SCIM_QUIRKS, patchNoContent: true });
    scim.clearRequests();

    for (const type of ['grant', 'revoke']) {
      const report = await bench.run({
        requestId: `filter-works-${type}`,
        connector: SCIM,
        account: { accountId },
        actions: [{ type, groups: ['Works Group'] }],
      });
      expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    }

    expect(scim.groupIdsOf(accountId)).toEqual([]);
    expect(scim.truthLog().map((event) => `${event.change} ${event.groupId}`)).toEqual([
      `member added ${group!.id}`,
      `member removed ${group!.id}`,
    ]);
    expect(wholeGroupReads(scim.requests)).toEqual([]);
    expect(scim.requests.filter((r) => r.query.filter?.includes(`members eq`))).not.toEqual([]);
  });
});
