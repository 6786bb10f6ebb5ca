import type { TargetAccount } from './account';
import { call, now, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type StepOp } from './step-ops';
import { mayBeLag, type StepContext } from './step-context';
import { delayWithin, nextRereadDelay } from './visibility';
import type { SerializedError } from './errors';

/**
 * Runs a write on the step's account; an ACCOUNT_NOT_FOUND about an account the service
 * created less than the visibility window ago is lag, not absence (graph-behaviour.md: a
 * new object may 404 to writes for a moment): the write is sent again on the timer until
 * the window has passed.
 */
export function* writePatiently<T>(
  context: StepContext,
  op: StepOp,
  input: unknown,
): Machine<IoResult<T>> {
  for (let round = 0; ; round++) {
    // Lag or absence is judged by when the write was sent, not by when its answer came
    // (a call may wait long for a throttling target after the target said 404).
    const sentAt = yield* now();
    const result = yield* call<T>(op, input);
    if (result.ok || result.error.code !== 'ACCOUNT_NOT_FOUND') return result;
    if (!mayBeLag(context, sentAt)) return result;
    yield* wait(nextRereadDelay(round));
  }
}

export type ReadBack =
  | { confirmed: boolean; seen: TargetAccount | null; reads: number; elapsedMs: number }
  | { error: SerializedError };

/**
 * Reads the account back until `check` accepts what a read shows or the visibility window
 * has passed (one read where reads show writes at once): success is declared only after a
 * read shows it (DESIGN invariant 9). Waits are the driver's (durable timers in production).
 */
export function* readBack(
  context: StepContext,
  account: TargetAccount,
  check: (seen: TargetAccount | null) => boolean,
): Machine<ReadBack> {
  const started = yield* now();
  const deadline = started + context.capabilities.visibilityWindowMs;
  for (let round = 0; ; round++) {
    const read = yield* call<TargetAccount | null>(STEP_OPS.readAccount, {
      connector: context.connector,
      account,
    });
    if (!read.ok) return { error: read.error };
    const at = yield* now();
    if (check(read.value)) {
      return { confirmed: true, seen: read.value, reads: round + 1, elapsedMs: at - started };
    }
    const delay = delayWithin(round, at, deadline);
    if (delay <= 0) {
      return { confirmed: false, seen: read.value, reads: round + 1, elapsedMs: at - started };
    }
    yield* wait(delay);
  }
}

/** "after 3 reads over 7 s", for notices and messages. */
export function describeReads(reads: number, elapsedMs: number): string {
  return `${reads} read${reads === 1 ? '' : 's'} over ${Math.round(elapsedMs / 1000)} s`;
}
