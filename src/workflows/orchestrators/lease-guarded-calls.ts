import type { OrchestrationContext } from 'durable-functions';
import type { SerializedError } from '../../domain/errors';
import type { ActivityResult } from '../activity-result';
import { ACTIVITIES, type ActivityName } from '../names';
import { callActivities, callActivity, type Step } from './activity-calls';

/** The activities that write the account on its target: each runs under the request's lease. */
export const ACCOUNT_WRITES: ReadonlySet<string> = new Set<string>([
  ACTIVITIES.createAccount,
  ACTIVITIES.updateAccount,
  ACTIVITIES.setAccountEnabled,
  ACTIVITIES.setPassword,
  ACTIVITIES.deleteAccount,
  ACTIVITIES.writeMemberships,
]);

/**
 * A request's lease as its writes need it: when it ends, renewed first with `renew` (a write
 * found too little left by its own clock); an error when it cannot be had again.
 */
export type WriteLease = (renew: boolean) => Step<number | { error: SerializedError }>;

/*
 * A write refused for its lease is sent again after a renewal; it is refused again only when
 * a renewal leaves too little (an activity host far behind): a few rounds are plenty.
 */
const MAX_RENEWALS = 3;

/** Whether an activity's answer is the refusal of a write whose lease was ending. */
export function leaseEnding(result: ActivityResult<unknown>): boolean {
  return !result.ok && result.error.code === 'ACCOUNT_LEASE_ENDING';
}

/**
 * Calls write activities under the request's lease (DESIGN invariant 7): each gets the
 * lease's end (`leaseEndsAtMs`) and sends nothing once too little of it is left; the
 * writes it refused are sent again once the lease is renewed. Answers in input order.
 * `single`: one call, scheduled as the machine asked it (not as a fan-out of one).
 */
export function* callUnderLease<T>(
  context: OrchestrationContext,
  lease: WriteLease,
  name: ActivityName,
  inputs: readonly unknown[],
  single = false,
): Step<ActivityResult<T>[]> {
  const results: ActivityResult<T>[] = [];
  let pending = inputs.map((_, index) => index);
  for (let round = 0; pending.length > 0; round += 1) {
    const end = yield* lease(round > 0);
    if (typeof end !== 'number') {
      for (const index of pending) results[index] = { ok: false, error: end.error };
      break;
    }
    const sent = pending.map((index) => ({ ...(inputs[index] as object), leaseEndsAtMs: end }));
    const answers = single
      ? [yield* callActivity<T>(context, name, sent[0])]
      : yield* callActivities<T>(context, name, sent);
    pending.forEach((index, i) => (results[index] = answers[i]!));
    pending = round < MAX_RENEWALS ? pending.filter((index) => leaseEnding(results[index]!)) : [];
  }
  return results;
}
