import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  activityCalls,
  requestActivityCalls,
  GRAPH,
  SCIM,
  useServiceBench,
} from '../../support/service-bench';

/**
 * Spec: Membership write procedure, steps 2-6, as the connectors' capabilities shape it:
 * what is read back (named groups only on SCIM), and how many groups one write carries
 * (membershipWriteBatchSize: SCIM 20 PATCHes of one group each, Graph a $batch of 20).
 */
const bench = useServiceBench();
afterEach(() => {
  bench.sandboxes.scim.setQuirks(SCIM_QUIRKS);
  bench.sandboxes.graph.setReplicationDelay(0);
});

const SCIM_QUIRKS = { lastLogonAttribute: 'lastLogin' };
const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);
const groupsIn = (input: unknown) => (input as { groupIds: string[] }).groupIds;
const writeOf = (input: unknown) => input as { add: string[]; remove: string[] };
const readBackOf = (input: unknown) =>
  (input as { readBack?: { groupIds: string[] } }).readBack?.groupIds ?? [];

describe('membership verification and write batches', () => {
  it('on SCIM reads back only the written groups, asking the server about the account', async () => {
    const { scim, scimGroups } = bench.sandboxes;
    const accountId = 'verify.named';
    scim.seedUsers([{ userName: accountId }]);
    // The account is also in a group the request does not name.
    const [other] = scim.seedGroups([{ displayName: 'Verify Other', members: [accountId] }]);
    // Writes answered 204 without members: only a read can confirm them.
    scim.setQuirks({ ...SCIM_QUIRKS, patchNoContent: true });
    scim.clearRequests();
    const granted = [scimGroups['Sales']!, scimGroups['Finance']!];

    const report = await bench.run({
      requestId: 'verify.named-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales', 'Finance'] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(scim.groupIdsOf(accountId)).toEqual(expect.arrayContaining(granted));
    // One read of both groups before, one write operation that reads both back after.
    const steps = activityCalls(bench, requestInstanceId('verify.named-1')).filter(
      (call) =>
        call.name === ACTIVITIES.readMemberships || call.name === ACTIVITIES.writeMemberships,
    );
    expect(
      steps.map((call) =>
        call.name === ACTIVITIES.readMemberships
          ? `read ${groupsIn(call.input).join(',')}`
          : `write ${writeOf(call.input).add.join(',')} then read ${readBackOf(call.input).join(',')}`,
      ),
    ).toEqual([
      `read ${granted.join(',')}`,
      `write ${granted.join(',')} then read ${granted.join(',')}`,
    ]);
    // On the server: the account asked about in the two groups, before and after the
    // writes, in one call each; no group read whole; the other group never came up.
    const asked = scim.requests
      .filter((request) => request.query.filter?.includes(`members eq "${accountId}"`))
      .map((request) => request.query.filter);
    // The account under both member-value forms: a group may hold either.
    const scimId = scim.getUser(accountId)?.id as string;
    const both = `(id eq "${granted[0]}" or id eq "${granted[1]}") and (members eq "${accountId}" or members eq "${scimId}")`;
    expect(asked).toEqual([both, both]);
    expect(
      scim.requests.filter((r) => r.method === 'GET' && /\/Groups\/[^/]+$/.test(r.path)),
    ).toEqual([]);
    expect(JSON.stringify(scim.requests)).not.toContain(other!.id);
  });

  it('on SCIM writes the groups of a grant in one operation, one PATCH per group (membershipWriteBatchSize 20)', async () => {
    const { scim, scimGroups } = bench.sandboxes;
    const accountId = 'batch.scim';
    scim.seedUsers([{ userName: accountId }]);
    const names = ['Sales', 'Finance', 'Support'];
    scim.clearRequests();

    const report = await bench.run({
      requestId: 'batch.scim-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: names }],
    });

    expect(report.status).toBe('succeeded');
    expect(scim.groupIdsOf(accountId).sort()).toEqual(names.map((n) => scimGroups[n]!).sort());
    const writes = callsOf('batch.scim-1', ACTIVITIES.writeMemberships).map((c) =>
      writeOf(c.input),
    );
    expect(writes.map((write) => write.add.length)).toEqual([3]);
    const patched = scim.requests
      .filter((r) => r.method === 'PATCH')
      .map((r) => r.path.split('/').at(-1));
    expect(patched.sort()).toEqual(names.map((n) => scimGroups[n]!).sort());
  });

  it('on Graph writes a grant of 25 groups in two calls (membershipWriteBatchSize 20)', async () => {
    const { graph } = bench.sandboxes;
    const accountId = 'batch.graph@contoso.example';
    const userId = graph.addUser({ userPrincipalName: accountId, displayName: 'Batch Graph' }).id;
    const groups = Array.from({ length: 25 }, (_, i) => {
      const displayName = `Batch Group ${String(i).padStart(2, '0')}`;
      return { id: graph.addGroup({ displayName }).id, displayName };
    });

    const report = await bench.run({
      requestId: 'batch.graph-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: groups.map((group) => ({ id: group.id })) }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(groups.filter((group) => graph.directMemberIds(group.id).includes(userId))).toEqual(
      groups,
    );
    const writes = callsOf('batch.graph-1', ACTIVITIES.writeMemberships).map((c) =>
      writeOf(c.input),
    );
    expect(writes.map((write) => write.add.length).sort((a, b) => a - b)).toEqual([5, 20]);
    expect(report.steps[0]?.changes).toHaveLength(25);
  });

  it('on Graph fails naming the group still shown where a revoked one should be gone', async () => {
    const { graph, graphGroups } = bench.sandboxes;
    const accountId = 'verify.revoke@contoso.example';
    const userId = graph.addUser({ userPrincipalName: accountId, displayName: 'Verify Revoke' }).id;
    graph.addMember(graphGroups['Sales']!, userId);
    // Reads lag the write by longer than the 30 s visibility window.
    graph.setReplicationDelay(40_000);

    const report = await bench.run({
      requestId: 'verify.revoke-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Sales'] }],
    });

    expect(report.steps[0]?.error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(report.steps[0]?.error?.details).toEqual({
      missing: [],
      unexpected: [{ id: graphGroups['Sales'], name: 'Sales' }],
    });
    // The revoke was written: the truth has it, and so has the journal.
    expect(graph.directMemberIds(graphGroups['Sales']!)).not.toContain(userId);
    const journal = await bench.journal(GRAPH, accountId);
    expect(journal.map((entry) => `${entry.change} ${entry.groupName ?? ''}`)).toEqual([
      'member removed Sales',
    ]);
  });
});
