import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import {
  throttleHoldExpired,
  throttleHoldNotice,
  throttleHoldReason,
  type StepThrottling,
} from '../../domain/throttle-hold';
import type { ThrottleHoldAnswer, ThrottleHoldInput } from '../activities/throttle-activities';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';
import { HELD_LEASE_MS, renewLease } from './held-lease';
import type { HoldOutcome, HoldSubject } from './quarantine-hold';

/**
 * After a step failed with TARGET_THROTTLED (DESIGN invariant 8): the request waits on a
 * durable timer for as long as the target's Retry-After asks, its `hold` saying so, keeping
 * the account's lease, and then runs the step again from its start, as after a quarantine
 * (its writes go by write intents and read-before, so a write done before counts once);
 * once it has waited the connector's `maxThrottleHoldMinutes` in all, the step fails with
 * TARGET_THROTTLED naming the target, the wait and the last Retry-After.
 */
export function* waitOutThrottling(
  context: OrchestrationContext,
  subject: HoldSubject,
  failure: SerializedError,
  throttling: StepThrottling,
): Step<HoldOutcome> {
  // The throttled call's own wait counts against the request's limit too.
  const holds = {
    holds: subject.throttled.holds,
    waitedMs: subject.throttled.waitedMs + throttling.waitedMs,
  };
  subject.throttled.waitedMs = holds.waitedMs;
  const input: ThrottleHoldInput = {
    connector: subject.connector,
    requestId: subject.requestId,
    throttling,
    holds,
  };
  const planned = yield* callActivity<ThrottleHoldAnswer>(context, ACTIVITIES.throttleHold, input);
  // Without an answer the step fails as it did: its own error names the throttling.
  if (!planned.ok) return { held: false };
  if ('maxMinutes' in planned.value) {
    return {
      error: throttleHoldExpired(
        subject.connector,
        failure,
        throttling,
        holds,
        planned.value.maxMinutes,
      ),
    };
  }
  const { delayMs } = planned.value;
  const at = context.df.currentUtcDateTime.getTime();
  let lease: { etag?: string; renewedAt: number } | undefined;
  if (subject.lease !== undefined) {
    const renewed = yield* renewLease(
      context,
      subject.connector,
      subject.lease,
      at,
      delayMs + HELD_LEASE_MS,
    );
    if ('error' in renewed) return renewed;
    lease = { ...renewed, renewedAt: at };
  }
  subject.show({
    cause: 'throttling',
    since: new Date(at).toISOString(),
    reason: { code: failure.code, message: throttleHoldReason(subject.connector, throttling) },
    nextCheckAt: new Date(at + delayMs).toISOString(),
  });
  yield* waitFor(context, delayMs);
  subject.show(undefined);
  subject.throttled.holds += 1;
  subject.throttled.waitedMs += delayMs;
  subject.notices.push(throttleHoldNotice(subject.connector, delayMs, throttling));
  return { held: true, ...(lease === undefined ? {} : { lease }) };
}
