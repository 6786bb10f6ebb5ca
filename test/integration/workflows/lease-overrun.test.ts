import { afterEach, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/connectors/connector';
import type { TruthEvent } from '../../../src/sandbox/truth/truth-event';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { LEASE_TTL_MS } from '../../../src/workflows/orchestrators/account-hold';
import { ACTIVITIES } from '../../../src/workflows/names';
import {
  leaseCalls,
  requestActivityCalls,
  SCIM,
  useServiceBench,
  type ActivityCall,
} from '../../support/service-bench';

/**
 * DESIGN invariant 7 when a step outlasts its lease (throttle waits, timeouts, activity
 * retries): the clock here jumps past the lease in the middle of a step, and another
 * request takes the expired lease. No write of the first request may reach the target
 * while the other holds the account.
 */
const bench = useServiceBench();

/** How long the other request holds the account once it took it (its own short lease). */
const OTHER_HOLDS_MS = 2_000;

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

function virtualClock(): VirtualClock {
  const { clock } = bench;
  if (!(clock instanceof VirtualClock)) throw new Error('the bench runs on a virtual clock');
  return clock;
}

/**
 * Runs `before` inside the first call of one of the SCIM connector's methods, then the call
 * itself: a step's time passing while that call runs (the connector is the real one, over
 * its socket to the sandbox).
 */
function onFirstCall(method: 'readMemberships' | 'writeMemberships', before: () => Promise<void>) {
  const connector = bench.runtime.services.registry.get(SCIM) as Connector;
  const original = Reflect.get(connector, method) as (...args: unknown[]) => Promise<unknown>;
  let first = true;
  (connector as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    if (first) {
      first = false;
      await before();
    }
    return original.apply(connector, args);
  };
  restore = () => {
    delete (connector as unknown as Record<string, unknown>)[method];
  };
}

/** The clock jumps by `ms`, and another request takes the account's lease if it is free. */
function otherRequestAfter(accountId: string, ms: number) {
  const taken: { untilMs?: number } = {};
  const run = async () => {
    const clock = virtualClock();
    clock.advanceBy(ms);
    const lease = await bench.runtime.services.accounts.acquire(
      SCIM,
      accountId,
      'other-request',
      clock.now(),
      OTHER_HOLDS_MS,
    );
    if (lease.acquired) taken.untilMs = clock.now() + OTHER_HOLDS_MS;
  };
  return { run, taken };
}

function memberAdds(userName: string, groupId: string): TruthEvent[] {
  return bench.sandboxes.scim
    .truthLog()
    .filter(
      (event) =>
        event.accountId === userName &&
        event.groupId === groupId &&
        event.change === 'member added',
    );
}

const errorCode = (call: ActivityCall) =>
  (call.result as { ok: boolean; error?: { code: string } }).error?.code;

describe('a step that outlasts its account lease (DESIGN invariant 7)', () => {
  it('sends no write once the lease ran out during the write; renews it, then writes', async () => {
    const accountId = 'overrun.write';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);
    const salesId = bench.sandboxes.scimGroups['Sales']!;
    // The write activity starts with its lease; before its PATCH, time passes the lease's end.
    const other = otherRequestAfter(accountId, LEASE_TTL_MS + 1_000);
    onFirstCall('writeMemberships', other.run);

    const report = await bench.run({
      requestId: 'overrun.write-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales'] }],
    });

    expect(other.taken.untilMs).toBeDefined();
    expect(report.status).toBe('succeeded');
    // The target: one add, made once the other request's lease had ended.
    const adds = memberAdds(accountId, salesId);
    expect(adds).toHaveLength(1);
    expect(adds[0]!.at).toBeGreaterThanOrEqual(other.taken.untilMs!);
    expect(
      (await bench.journal(SCIM, accountId)).map((entry) => [entry.change, entry.groupId]),
    ).toEqual([['member added', salesId]]);
    // The refused write, the renewal, the write again under the renewed lease.
    const writes = requestActivityCalls(bench, 'overrun.write-1', ACTIVITIES.writeMemberships);
    expect(writes.map(errorCode)).toEqual(['ACCOUNT_LEASE_ENDING', undefined]);
    const renewal = leaseCalls(bench, 'overrun.write-1').filter(
      (call) => call.scheduledAt >= writes[0]!.answeredAt!,
    );
    expect(renewal.at(-1)?.result).toMatchObject({ ok: true, value: { acquired: true } });
    // It went with the renewed lease's end (or earlier: the orchestration counts from its first poll).
    const sentWith = (writes[1]!.input as { leaseEndsAtMs: number }).leaseEndsAtMs;
    const renewed = (renewal.at(-1)!.result as { value: { expiresAt: string } }).value;
    expect(sentWith).toBeLessThanOrEqual(Date.parse(renewed.expiresAt));
    expect(sentWith - writes[1]!.scheduledAt).toBeGreaterThan(LEASE_TTL_MS / 2);
  });

  it('renews the lease before a write when the read before it ran past its end', async () => {
    const accountId = 'overrun.read';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);
    const supportId = bench.sandboxes.scimGroups['Support']!;
    const other = otherRequestAfter(accountId, LEASE_TTL_MS + 1_000);
    onFirstCall('readMemberships', other.run);

    const report = await bench.run({
      requestId: 'overrun.read-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });

    expect(other.taken.untilMs).toBeDefined();
    expect(report.status).toBe('succeeded');
    const adds = memberAdds(accountId, supportId);
    expect(adds).toHaveLength(1);
    expect(adds[0]!.at).toBeGreaterThanOrEqual(other.taken.untilMs!);
    // The write was refused for its lease, then sent again only once the lease was the
    // request's again: no renewal is scheduled before a write otherwise, so a request running
    // when this version was deployed replays the activities its history holds.
    const writes = requestActivityCalls(bench, 'overrun.read-1', ACTIVITIES.writeMemberships);
    expect(writes).toHaveLength(2);
    expect(writes[0]!.result).toMatchObject({
      ok: false,
      error: { code: 'ACCOUNT_LEASE_ENDING' },
    });
    const renewals = leaseCalls(bench, 'overrun.read-1').filter(
      (call) =>
        call.scheduledAt >= writes[0]!.answeredAt! && call.scheduledAt <= writes[1]!.scheduledAt,
    );
    expect(renewals.at(-1)?.result).toMatchObject({ ok: true, value: { acquired: true } });
  });
});
