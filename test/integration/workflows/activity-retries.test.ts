import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  createCalls,
  requestActivityCalls,
  SCIM,
  useServiceBench,
} from '../../support/service-bench';

/**
 * Retryable failures an activity throws (the target unavailable after the transport's own
 * retries) are retried by Durable on timers (ACTIVITY_RETRY: 2 s, doubling, 3 attempts);
 * expected failures come back as data and are not retried.
 */
const bench = useServiceBench();

/** One activity call takes the transport's first try and its 4 retries (maxRetries 4). */
const CALLS_PER_ATTEMPT = 5;
const ATTEMPTS = 3;

const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);
const inGroup = (group: string, userName: string) =>
  ((bench.sandboxes.scim.getGroup(group)?.members ?? []) as { value: string }[]).some(
    (member) => member.value === userName,
  );

describe('activities that fail retryably (ACTIVITY_RETRY)', () => {
  it('retries a create that outlasted the transport retries on a durable timer, and the request succeeds', async () => {
    const accountId = 'retry.burst';
    bench.sandboxes.scim.injectServerErrors(CALLS_PER_ATTEMPT + 1, 503);
    bench.sandboxes.scim.clearRequests();

    const report = await bench.run({
      requestId: 'retry.burst-1',
      connector: SCIM,
      account: { accountId, displayName: 'Retry Burst' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['succeeded', 'succeeded']);
    expect(bench.sandboxes.scim.getUser(accountId)).toBeDefined();
    expect(inGroup('Sales', accountId)).toBe(true);
    // The first attempt rode on the first look at the connector (revision 5), which answered
    // its failure as data (the lease it took kept); the create's own activity sent it again
    // after the wait of Durable's first retry.
    const creates = createCalls(bench, 'retry.burst-1');
    expect(creates.map((call) => call.name)).toEqual([
      ACTIVITIES.createAccount,
      ACTIVITIES.createAccount,
    ]);
    expect(creates[0]?.result).toMatchObject({
      ok: false,
      error: { code: 'TARGET_UNAVAILABLE', retryable: true },
    });
    expect(creates[1]?.result).toMatchObject({ ok: true, value: { outcome: 'created' } });
    expect(creates[1]!.scheduledAt - creates[0]!.answeredAt!).toBe(2_000);
    // Five tries of the transport in the first attempt, the sixth 503 and a 201 in the second.
    const posts = bench.sandboxes.scim.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/Users'),
    );
    expect(posts.map((request) => request.status)).toEqual([503, 503, 503, 503, 503, 503, 201]);
    const history = bench.runtime.driver.history(requestInstanceId('retry.burst-1'));
    const firedAt = history.findIndex((event) => event.EventType === HISTORY_EVENT.TimerFired);
    const rescheduledAt = history.findIndex(
      (event) =>
        event.EventType === HISTORY_EVENT.TaskScheduled && event.Name === ACTIVITIES.createAccount,
    );
    expect(firedAt).toBeGreaterThan(0);
    expect(rescheduledAt).toBeGreaterThan(firedAt);
    // One account on the server and one journal entry for it, whatever the retries.
    expect(
      bench.sandboxes.scim
        .truthLog()
        .filter((event) => event.accountId === accountId)
        .map((event) => event.change),
    ).toEqual(['account created', 'member added']);
    expect((await bench.journal(SCIM, accountId)).map((entry) => entry.change).sort()).toEqual([
      'account created',
      'member added',
    ]);
  });

  it('fails the step with TARGET_UNAVAILABLE when the outage outlasts every attempt', async () => {
    const accountId = 'retry.outage';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);
    // 502: the transport does not retry it (the gateway may have passed it on), Durable does;
    // one call per attempt keeps the transport's real-time backoff out of this test.
    bench.sandboxes.scim.injectServerErrors(ATTEMPTS, 502);
    bench.sandboxes.scim.clearRequests();

    const report = await bench.run({
      requestId: 'retry.outage-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales'] }, { type: 'lock' }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error).toMatchObject({
      code: 'TARGET_UNAVAILABLE',
      retryable: true,
      status: 502,
    });
    expect(bench.sandboxes.scim.requests.map((request) => request.status)).toEqual([502, 502, 502]);
    const finds = callsOf('retry.outage-1', ACTIVITIES.findAccount);
    expect(finds.map((call) => call.failure === undefined)).toEqual([false, false, false]);
    // Retried after 2 s, then after 4 s.
    expect(finds.slice(1).map((call, i) => call.scheduledAt - finds[i]!.answeredAt!)).toEqual([
      2_000, 4_000,
    ]);
    expect(callsOf('retry.outage-1', ACTIVITIES.writeMemberships)).toEqual([]);
    expect(callsOf('retry.outage-1', ACTIVITIES.setAccountEnabled)).toEqual([]);
    expect(inGroup('Sales', accountId)).toBe(false);
    expect(bench.sandboxes.scim.getUser(accountId)?.active).not.toBe(false);
    // The outage is over: the account's lease was released, the next request runs.
    const next = await bench.run({
      requestId: 'retry.outage-2',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect(next.status).toBe('succeeded');
    expect(bench.sandboxes.scim.getUser(accountId)?.active).toBe(false);
  });

  it('does not retry an expected failure returned as data (a group not found)', async () => {
    const accountId = 'retry.expected';
    bench.sandboxes.scim.seedUsers([{ userName: accountId }]);

    const report = await bench.run({
      requestId: 'retry.expected-1',
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['No Such Group'] }],
    });

    expect(report.steps[0]?.error?.code).toBe('GROUP_NOT_FOUND');
    const resolves = callsOf('retry.expected-1', ACTIVITIES.resolveGroup);
    expect(resolves).toHaveLength(1);
    expect(resolves[0]?.result).toMatchObject({ ok: false, error: { code: 'GROUP_NOT_FOUND' } });
    const history = bench.runtime.driver.history(requestInstanceId('retry.expected-1'));
    expect(history.filter((event) => event.EventType === HISTORY_EVENT.TaskFailed)).toEqual([]);
  });
});
