import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import type { LeaseResult } from '../../../src/store/account-state';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  activityCalls,
  leaseCalls,
  leaseReleaseOf,
  requestActivityCalls,
  GRAPH,
  SCIM,
  useServiceBench,
  type ActivityCall,
} from '../../support/service-bench';

/** DESIGN invariant 7: one request at a time writes an account, whatever else is submitted. */
const bench = useServiceBench();
afterEach(() => {
  bench.sandboxes.graph.setReplicationDelay(0);
});

const upn = (name: string) => `${name}@contoso.example`;
const WRITES: string[] = [
  ACTIVITIES.createAccount,
  ACTIVITIES.updateAccount,
  ACTIVITIES.setAccountEnabled,
  ACTIVITIES.setPassword,
  ACTIVITIES.deleteAccount,
  ACTIVITIES.writeMemberships,
];

const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);
const writesOf = (requestId: string) =>
  activityCalls(bench, requestInstanceId(requestId)).filter((call) => WRITES.includes(call.name));
const lease = (call: ActivityCall) => (call.result as { value: LeaseResult }).value;
const releaseOf = (requestId: string) => leaseReleaseOf(bench, requestId);

/** Submits `body` at the first durable timer after this call: while the request now running waits on it. */
function submitAtNextTimer(body: Record<string, unknown>): Promise<string> {
  const clock = bench.clock;
  if (!(clock instanceof VirtualClock)) throw new Error('the bench runs on a virtual clock');
  return new Promise((resolve, reject) => {
    const stop = clock.onAdvance(() => {
      stop();
      bench.submit(body).then(resolve, reject);
    });
  });
}

/** Whether the lease is free now: another owner can take it (then gives it back). */
async function leaseIsFree(connector: string, accountId: string): Promise<boolean> {
  const { accounts } = bench.runtime.services;
  const probe = await accounts.acquire(connector, accountId, 'probe', bench.clock.now(), 1_000);
  if (probe.acquired) await accounts.release(connector, accountId, 'probe');
  return probe.acquired;
}

function graphGroupsOf(accountId: string): string[] {
  const { graph, graphGroups } = bench.sandboxes;
  const id = graph.userIdByUpn(accountId);
  if (id === undefined) throw new Error(`no user ${accountId} on the Graph sandbox`);
  return Object.entries(graphGroups)
    .filter(([, groupId]) => graph.directMemberIds(groupId).includes(id))
    .map(([name]) => name)
    .sort();
}

describe('the account lease (DESIGN invariant 7)', () => {
  it('makes a second request for the account poll on timers until the first releases, then run', async () => {
    const accountId = upn('lease.queue');
    const created = await bench.run({
      requestId: 'lease.queue-0',
      connector: GRAPH,
      account: { accountId, displayName: 'Lease Queue' },
      actions: [{ type: 'create' }],
    });
    expect(created.status).toBe('succeeded');
    // Reads lag writes by 5 s: the first request holds the lease ~7 s while it verifies.
    bench.sandboxes.graph.setReplicationDelay(5_000);
    const second = submitAtNextTimer({
      requestId: 'lease.queue-2',
      connector: GRAPH,
      account: { accountId },
      actions: [
        { type: 'revoke', groups: ['Sales'] },
        { type: 'grant', groups: ['Finance'] },
      ],
    });

    const first = await bench.run({
      requestId: 'lease.queue-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales', 'Support'] }],
    });
    const report = await bench.finish(await second);

    expect(first.status).toBe('succeeded');
    expect(report.steps.map((step) => step.state)).toEqual(['succeeded', 'succeeded']);
    // The truth is the first request's grants, then the second's revoke and grant.
    expect(graphGroupsOf(accountId)).toEqual(['Finance', 'Support']);
    const committed = bench.sandboxes.graph
      .truthLog()
      .filter((event) => event.accountId === accountId && event.change.startsWith('member'));
    const salesId = bench.sandboxes.graphGroups['Sales'];
    const financeId = bench.sandboxes.graphGroups['Finance'];
    expect(committed.slice(-2).map((event) => [event.change, event.groupId])).toEqual([
      ['member removed', salesId],
      ['member added', financeId],
    ]);

    const release = releaseOf('lease.queue-1');
    const polls = leaseCalls(bench, 'lease.queue-2');
    const refused = polls.filter((call) => !lease(call).acquired);
    // The first verifies for ~7 s (reads at +0, +1, +3, +7 s): the second polls every second.
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(new Set(refused.map((call) => lease(call).holder))).toEqual(
      new Set([requestInstanceId('lease.queue-1')]),
    );
    const gaps = refused.slice(1).map((call, i) => call.scheduledAt - refused[i]!.scheduledAt);
    expect(new Set(gaps)).toEqual(new Set([1_000]));
    const timers = bench.runtime.driver
      .history(requestInstanceId('lease.queue-2'))
      .filter((event) => event.EventType === HISTORY_EVENT.TimerFired);
    expect(timers.length).toBeGreaterThanOrEqual(refused.length);
    const taken = polls.find((call) => lease(call).acquired);
    expect(taken?.scheduledAt).toBeGreaterThanOrEqual(release.answeredAt);

    // Every write of the first before its release, every write of the second after it.
    const firstWrites = writesOf('lease.queue-1');
    const secondWrites = writesOf('lease.queue-2');
    expect(firstWrites.length).toBeGreaterThan(0);
    expect(secondWrites.length).toBeGreaterThanOrEqual(2);
    for (const write of firstWrites)
      expect(write.answeredAt).toBeLessThanOrEqual(release.scheduledAt);
    for (const write of secondWrites)
      expect(write.scheduledAt).toBeGreaterThanOrEqual(release.answeredAt);
    expect(await leaseIsFree(GRAPH, accountId)).toBe(true);
  });

  it("takes over a crashed holder's lease once it expires", async () => {
    const accountId = 'lease.crashed';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);
    const start = bench.clock.now();
    const held = await bench.runtime.services.accounts.acquire(
      SCIM,
      accountId,
      'request-crashed',
      start,
      3_000,
    );
    expect(held.acquired).toBe(true);

    const report = await bench.run({
      requestId: 'lease.crashed-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });

    expect(report.status).toBe('succeeded');
    expect(bench.sandboxes.scim.getUser(accountId)?.active).toBe(false);
    const polls = leaseCalls(bench, 'lease.crashed-1');
    expect(
      polls.map((call) => [call.scheduledAt - start, lease(call).acquired, lease(call).holder]),
    ).toEqual([
      [0, false, 'request-crashed'],
      [1_000, false, 'request-crashed'],
      [2_000, false, 'request-crashed'],
      [3_000, true, undefined],
    ]);
    const [lock] = callsOf('lease.crashed-1', ACTIVITIES.setAccountEnabled);
    expect(lock!.scheduledAt - start).toBe(3_000);
    expect(await leaseIsFree(SCIM, accountId)).toBe(true);
  });

  it('releases the lease when the request fails, so the next request runs at once', async () => {
    const accountId = 'lease.failed';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);

    const failed = await bench.run({
      requestId: 'lease.failed-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['No Such Group'] }, { type: 'lock' }],
    });
    expect(failed.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(bench.sandboxes.scim.getUser(accountId)?.active).not.toBe(false);
    releaseOf('lease.failed-1');

    const next = await bench.run({
      requestId: 'lease.failed-2',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect(next.status).toBe('succeeded');
    expect(bench.sandboxes.scim.getUser(accountId)?.active).toBe(false);
    const polls = leaseCalls(bench, 'lease.failed-2');
    expect(polls.map((call) => lease(call).acquired)).toEqual([true]);
  });

  it("takes a free account's lease in its first look at the connector: no lease activity of its own", async () => {
    const accountId = 'lease.first-look';
    const report = await bench.run({
      requestId: accountId,
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'create' }],
    });
    expect(report.status).toBe('succeeded');
    expect(bench.sandboxes.scim.getUser(accountId)).toBeDefined();
    const names = activityCalls(bench, requestInstanceId(accountId)).map((call) => call.name);
    expect(names[0]).toBe(ACTIVITIES.connectorGate);
    expect(names).not.toContain(ACTIVITIES.acquireAccountLease);
    const polls = leaseCalls(bench, accountId);
    expect(
      polls.map((call) => [
        lease(call).acquired,
        (call.input as { likelyNew?: boolean }).likelyNew,
      ]),
    ).toEqual([[true, true]]);
    // The lease was held: the create's record write released it.
    expect(releaseOf(accountId).name).toBe(ACTIVITIES.recordStep);
  });
});
