import { describe, expect, it } from 'vitest';
import type { RequestReport } from '../../../src/domain/request-report';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import type { LeaseResult } from '../../../src/store/account-state';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  leaseReleaseOf,
  leaseCalls,
  requestActivityCalls,
  GRAPH,
  useServiceBench,
  type ActivityCall,
} from '../../support/service-bench';

/** DESIGN invariant 7 for a request that runs longer than the lease it took (5 minutes). */
const bench = useServiceBench();

const LEASE_MS = 5 * 60_000;
const lease = (call: ActivityCall) => (call.result as { value: LeaseResult }).value;
const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);

/**
 * Waits for a request without the replay check of every history prefix: these histories
 * are long (hundreds of timers), and the other workflow tests check replay of the same code.
 */
async function outcome(requestId: string): Promise<RequestReport> {
  const state = await bench.runtime.driver.waitFor(requestInstanceId(requestId), 60_000);
  expect(state.runtimeStatus).toBe('Completed');
  return state.output as RequestReport;
}

describe('the account lease of a long request (DESIGN invariant 7)', () => {
  it('is kept through a request longer than the lease; a competing request runs only after it', async () => {
    const { graph } = bench.sandboxes;
    const accountId = 'lease.long@contoso.example';
    const teams = Array.from({ length: 11 }, (_, i) => {
      const displayName = `Renewal Team ${i}`;
      return { displayName, id: graph.addGroup({ displayName }).id };
    });
    const created = await bench.run({
      requestId: 'lease.long-0',
      connector: GRAPH,
      account: { accountId, displayName: 'Lease Long' },
      actions: [{ type: 'create' }],
    });
    expect(created.status).toBe('succeeded');
    // Writes show after 29 s: each grant verifies after ~30 s, 11 of them outlast the lease.
    graph.setReplicationDelay(29_000);
    const start = bench.clock.now();
    const clock = bench.clock;
    if (!(clock instanceof VirtualClock)) throw new Error('the bench runs on a virtual clock');
    let competitor: Promise<string> | undefined;
    const stop = clock.onAdvance((now) => {
      if (competitor !== undefined || now < start + 200_000) return;
      competitor = bench.submit({
        requestId: 'lease.long-2',
        connector: GRAPH,
        account: { accountId },
        actions: [{ type: 'revoke', groups: ['Renewal Team 0'] }],
      });
    });

    await bench.submit({
      requestId: 'lease.long-1',
      connector: GRAPH,
      account: { accountId },
      actions: teams.map((team) => ({ type: 'grant', groups: [team.displayName] })),
    });
    const long = await outcome('lease.long-1');
    stop();
    expect(competitor).toBeDefined();
    const other = await outcome(await competitor!);

    expect(long.steps.map((step) => step.state)).toEqual(teams.map(() => 'succeeded'));
    expect(Date.parse(long.finishedAt ?? '') - start).toBeGreaterThan(LEASE_MS);
    expect(other.status).toBe('succeeded');
    const userId = graph.userIdByUpn(accountId)!;
    expect(teams.filter((team) => graph.directMemberIds(team.id).includes(userId))).toEqual(
      teams.slice(1),
    );
    // The revoke of the competitor was committed after every grant of the long request.
    const committed = graph.truthLog().filter((event) => event.accountId === accountId);
    expect(committed.slice(-12).map((event) => event.change)).toEqual([
      ...teams.map(() => 'member added'),
      'member removed',
    ]);

    // Each acquire of the owner succeeded, and it renewed the lease before it ran out.
    const acquires = leaseCalls(bench, 'lease.long-1');
    expect(acquires.length).toBeGreaterThanOrEqual(2);
    expect(acquires.map((call) => lease(call).acquired)).toEqual(acquires.map(() => true));
    for (const write of callsOf('lease.long-1', ACTIVITIES.writeMemberships)) {
      const last = acquires.filter((call) => call.scheduledAt <= write.scheduledAt).at(-1);
      expect(Date.parse(lease(last!).expiresAt ?? '')).toBeGreaterThan(write.answeredAt!);
    }
    // The competitor kept polling past the end of the first lease, and was refused throughout.
    const release = leaseReleaseOf(bench, 'lease.long-1');
    const polls = leaseCalls(bench, 'lease.long-2');
    const refused = polls.filter((call) => !lease(call).acquired);
    expect(refused.some((call) => call.scheduledAt > start + LEASE_MS)).toBe(true);
    expect(new Set(refused.map((call) => lease(call).holder))).toEqual(
      new Set([requestInstanceId('lease.long-1')]),
    );
    const taken = polls.find((call) => lease(call).acquired);
    expect(taken!.scheduledAt).toBeGreaterThanOrEqual(release.answeredAt);
    for (const write of callsOf('lease.long-2', ACTIVITIES.writeMemberships))
      expect(write.scheduledAt).toBeGreaterThanOrEqual(release.answeredAt);
  });
});
