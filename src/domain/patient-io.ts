import type { TargetAccount } from './account';
import { call, now, wait, type IoResult, type Machine } from './step-machine';
import { STEP_OPS, type AccountWriteReadBack, type StepOp } from './step-ops';
import { mayBeLag, type StepContext } from './step-context';
import { delayWithin, nextRereadDelay } from './visibility';
import type { SerializedError } from './errors';

/** A write's answer and, when the write made it, the first read back of the account. */
export type ReadBackWrite<T> = IoResult<T> & { readBack?: IoResult<TargetAccount | null> };

/**
 * Runs a write on the step's account; an ACCOUNT_NOT_FOUND about an account the service
 * created less than the visibility window ago is lag, not absence (graph-behaviour.md: a
 * new object may 404 to writes for a moment): the write is sent again on the timer until
 * the window has passed. `readsBack`: the step reads the account back at once after an
 * answered write; in revision 3 the write makes that read (`foldedWrite`).
 */
export function* writePatiently<T>(
  context: StepContext,
  op: StepOp,
  input: object,
  readsBack = false,
): Machine<ReadBackWrite<T>> {
  for (let round = 0; ; round++) {
    // Lag or absence is judged by when the write was sent, not by when its answer came
    // (a call may wait long for a throttling target after the target said 404).
    const sentAt = yield* now();
    const result = yield* foldedWrite<T>(context, op, input, readsBack);
    if (result.ok || result.error.code !== 'ACCOUNT_NOT_FOUND') return result;
    if (!mayBeLag(context, sentAt)) return result;
    yield* wait(nextRereadDelay(round));
  }
}

/**
 * One account write; with `readsBack` in revision 3 (`StepContext.foldsReadBack`) its
 * operation also reads the account once the write is answered, for {@link readBack}.
 */
export function* foldedWrite<T>(
  context: StepContext,
  op: StepOp,
  input: object,
  readsBack: boolean,
): Machine<ReadBackWrite<T>> {
  if (!readsBack || context.foldsReadBack !== true) return yield* call<T>(op, input);
  const result = yield* call<AccountWriteReadBack<T>>(op, { ...input, readBack: true });
  if (!result.ok) return result;
  const { answer, readBack } = result.value;
  return readBack === undefined
    ? { ok: true, value: answer }
    : { ok: true, value: answer, readBack };
}

export type ReadBack =
  | { confirmed: boolean; seen: TargetAccount | null; reads: number; elapsedMs: number }
  | { error: SerializedError };

/**
 * Reads the account back until `check` accepts what a read shows or the visibility window
 * has passed (one read where reads show writes at once): success is declared only after a
 * read shows it (DESIGN invariant 9). Waits are the driver's (durable timers in production).
 * `folded`: the first read, when the write made it; where that read failed, it is made again.
 */
export function* readBack(
  context: StepContext,
  account: TargetAccount,
  check: (seen: TargetAccount | null) => boolean,
  folded?: IoResult<TargetAccount | null>,
): Machine<ReadBack> {
  const started = yield* now();
  const deadline = started + context.capabilities.visibilityWindowMs;
  for (let round = 0; ; round++) {
    const read =
      round === 0 && folded?.ok === true
        ? folded
        : yield* call<TargetAccount | null>(STEP_OPS.readAccount, {
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
