import type { SerializedError } from './errors';
import { describeDuration } from './quarantine';

/**
 * The throttling hold (DESIGN invariant 8: a throttling storm slows the service down; it does
 * not fail requests). A call waits for a throttling target in place for up to the
 * connector's `maxThrottleWaitSeconds`; a step whose call was throttled longer than that, or
 * told by one `Retry-After` to wait longer, fails with TARGET_THROTTLED, and its request then
 * waits on a durable timer for as long as the target asked and runs the step again from its
 * start, until it has waited `maxThrottleHoldMinutes` in all.
 */

/** A request waits at most this long in all for its target's throttling, unless its connector says otherwise. */
export const THROTTLE_HOLD_DEFAULT_MINUTES = 60;

/** The shortest hold: a Retry-After of a second is not worth a durable timer's round trip. */
const SHORTEST_HOLD_MS = 5_000;
/** A throttled answer without Retry-After: the first hold, doubled by each later one... */
const FIRST_UNHINTED_HOLD_MS = 30_000;
/** ...up to this. */
const LONGEST_UNHINTED_HOLD_MS = 10 * 60_000;

/** What a step's TARGET_THROTTLED error tells its request's throttling hold. */
export interface StepThrottling {
  /** How long the throttled call waited in place before it gave up. */
  waitedMs: number;
  /** What the last 429's `Retry-After` asked for, when it said. */
  retryAfterMs?: number;
}

/**
 * The throttling a step's failure reports, or undefined when it failed otherwise.
 *
 * @example
 * stepThrottling({ code: 'TARGET_THROTTLED', message: '...', retryable: false, details: { throttledWaitMs: 120_000, retryAfterMs: 30_000 } }); // { waitedMs: 120000, retryAfterMs: 30000 }
 */
export function stepThrottling(error: SerializedError | undefined): StepThrottling | undefined {
  if (error?.code !== 'TARGET_THROTTLED') return undefined;
  const waited = error.details?.throttledWaitMs;
  const retryAfter = error.details?.retryAfterMs;
  return {
    waitedMs: typeof waited === 'number' && waited > 0 ? waited : 0,
    ...(typeof retryAfter === 'number' && retryAfter >= 0 ? { retryAfterMs: retryAfter } : {}),
  };
}

/** A request's throttling so far: its holds and the wait they add up to. */
export interface ThrottleHolds {
  /** Holds so far. */
  holds: number;
  /** Waited in all for the target's throttling: the failed calls' waits in place and the holds. */
  waitedMs: number;
}

/**
 * How long the request waits before it runs the step again: what the target asked for (at
 * least 5 s), else 30 s doubling with each hold up to 10 minutes; undefined when that would
 * take the request past `maxMs` of throttling in all (`holds.waitedMs` counts the failed
 * call's own wait already): the step fails then.
 *
 * @example
 * throttleHoldDelayMs({ retryAfterMs: 600_000, waitedMs: 0 }, { holds: 0, waitedMs: 0 }, 3_600_000); // 600_000
 */
export function throttleHoldDelayMs(
  throttling: StepThrottling,
  holds: ThrottleHolds,
  maxMs: number,
): number | undefined {
  const delay =
    throttling.retryAfterMs !== undefined && throttling.retryAfterMs > 0
      ? Math.max(SHORTEST_HOLD_MS, throttling.retryAfterMs)
      : Math.min(LONGEST_UNHINTED_HOLD_MS, FIRST_UNHINTED_HOLD_MS * 2 ** Math.min(holds.holds, 20));
  return holds.waitedMs + delay > maxMs ? undefined : delay;
}

/** What an operator reads in the request's status while it waits, and in the step's notices after. */
export function throttleHoldReason(connector: string, throttling: StepThrottling): string {
  const asked =
    throttling.retryAfterMs === undefined
      ? 'it said for how long no more'
      : `its last Retry-After asked for ${describeDuration(throttling.retryAfterMs)}`;
  return (
    `waits for the throttling of connector "${connector}" (429 Too Many Requests; ${asked}), ` +
    'then runs the step again from its start'
  );
}

/** The step's notice of one hold: its request waited for the target's throttling and ran the step again. */
export function throttleHoldNotice(
  connector: string,
  waitedMs: number,
  throttling: StepThrottling,
): string {
  const asked =
    throttling.retryAfterMs === undefined
      ? 'no Retry-After'
      : `Retry-After ${describeDuration(throttling.retryAfterMs)}`;
  return (
    `held ${describeDuration(waitedMs)} for the throttling of connector "${connector}" ` +
    `(429 Too Many Requests, ${asked}), then ran the step again from its start`
  );
}

/**
 * The error of a step whose request waited for its target's throttling as long as it may
 * (`maxMinutes`): TARGET_THROTTLED naming the target, how long the request waited, and what
 * the last Retry-After asked for. `failure`: the step's last TARGET_THROTTLED.
 */
export function throttleHoldExpired(
  connector: string,
  failure: SerializedError,
  throttling: StepThrottling,
  holds: ThrottleHolds,
  maxMinutes: number,
): SerializedError {
  const asked =
    throttling.retryAfterMs === undefined
      ? 'the last 429 said for how long no more'
      : `the last Retry-After asked for ${describeDuration(throttling.retryAfterMs)} more`;
  return {
    code: 'TARGET_THROTTLED',
    message:
      `connector "${connector}" kept throttling: the request waited ` +
      `${describeDuration(holds.waitedMs)} for it in all (${holds.holds} ` +
      `${holds.holds === 1 ? 'hold' : 'holds'} on a durable timer) and ${asked}, past the limit ` +
      `of ${maxMinutes} min (maxThrottleHoldMinutes); what the step wrote before is journaled, ` +
      'the steps after it did not run. ' +
      `Last answer: ${failure.message}`,
    retryable: false,
    ...(failure.status === undefined ? {} : { status: failure.status }),
    object: failure.object ?? connector,
    details: {
      ...failure.details,
      requestThrottledMs: holds.waitedMs,
      throttleHolds: holds.holds,
      ...(throttling.retryAfterMs === undefined ? {} : { retryAfterMs: throttling.retryAfterMs }),
    },
  };
}
