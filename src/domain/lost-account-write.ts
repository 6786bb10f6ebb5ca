import type { TargetAccount } from './account';
import type { AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import { readRefutes } from './account-write-verdicts';
import { describeLostAnswer, mayHaveBeenApplied } from './lost-answer';
import { describeReads, readBack } from './patient-io';
import { now, type Machine } from './step-machine';
import type { StepContext } from './step-context';
import { failed, succeeded, withVerification, type StepOutcome } from './step-outcome';

/** What an account write changes once a read-back shows it applied. */
export interface LostWriteChange {
  /** The write, for notices: 'lock of account "ada"'. */
  what: string;
  changes: EffectiveChange[];
  notices: string[];
  record?: AccountRecordUpdate;
  /**
   * What the record learns when the write's fate stays unknown (its answer lost, and no read
   * confirmed or refuted it): what the write touched is marked not known, so that no later
   * step rests a verdict on the record for it.
   */
  unsettled?: AccountRecordUpdate;
  /**
   * Until when (ms) a read may still show the state from before the service's own last
   * write of the same thing, or from before the account existed: a read made earlier that
   * shows the state this write asked for may be that older state, and proves nothing.
   */
  readsMayLagUntilMs?: number;
}

/**
 * Until when reads may lag behind the service's own write made at `at` (ISO), as a
 * {@link LostWriteChange} takes it: a visibility window after it. None where there was no such
 * write or reads show writes at once: nothing to wait for.
 *
 * @example
 * lagAfter(record?.profileAt, context); // { readsMayLagUntilMs: profileAt + 30 s } on Graph
 */
export function lagAfter(
  at: string | undefined,
  context: StepContext,
): { readsMayLagUntilMs?: number } {
  const window = context.capabilities.visibilityWindowMs;
  if (at === undefined || window <= 0) return {};
  return { readsMayLagUntilMs: Date.parse(at) + window };
}

/**
 * An account write that failed. Refused, or never sent: the step fails with its error. After
 * it may have been applied (its answer lost, scim-interop.md), the read-back decides, within
 * the visibility window (DESIGN invariant 11). Shown applied: the step succeeds with the
 * write's changes, saying the answer was lost. Not shown, shown only by a read that may lag
 * the service's own last write, or not readable: the step fails with the write's own error,
 * saying what the reads showed or that it could not tell; nothing is journaled, and the
 * record learns `unsettled` (what the write touched is not known), unless a read that shows
 * what the target holds (`readRefutes`) showed it not applied.
 */
export function* afterFailedAccountWrite(
  context: StepContext,
  account: TargetAccount,
  error: SerializedError,
  check: (seen: TargetAccount | null) => boolean,
  change: LostWriteChange,
): Machine<StepOutcome> {
  // Revision 1 read nothing back: the step failed with the write's error.
  if (!mayHaveBeenApplied(error) || context.replaysRevision1 === true) return failed(error);
  const readFrom = yield* now();
  const back = yield* readBack(context, account, check);
  const how = `${change.what}: ${describeLostAnswer(error)}`;
  if ('error' in back) {
    const tell =
      `${how}, and reading the account back failed (${back.error.code}): ` +
      `could not tell whether it was applied`;
    return failed({ ...error, message: `${error.message}; ${tell}` }, [], [tell], change.unsettled);
  }
  const lagging = change.readsMayLagUntilMs;
  if (back.confirmed && lagging !== undefined && readFrom + back.elapsedMs < lagging) {
    const tell =
      `${how}, and the read that shows it came less than the visibility window after the ` +
      `service's own last write of the same: it may show the state from before that write, ` +
      `so it could not tell whether this one was applied`;
    // Not a verification either: the read proved nothing.
    return withVerification(
      failed({ ...error, message: `${error.message}; ${tell}` }, [], [tell], change.unsettled),
      { ...back, confirmed: false },
    );
  }
  if (back.confirmed) {
    const notices = [...change.notices, `${how}; the read-back shows it applied`];
    return withVerification(succeeded(change.changes, notices, change.record), back);
  }
  const tell = `${how}, and no read-back shows it applied after ${describeReads(back.reads, back.elapsedMs)}`;
  // Where reads lag, one that does not show the write is no proof it was not applied: a
  // replica may lag longer than the window (no maximum delay is documented).
  const refuted = readRefutes(context) && back.seen !== null;
  return withVerification(
    failed(
      { ...error, message: `${error.message}; ${tell}` },
      [],
      [tell],
      refuted ? undefined : change.unsettled,
    ),
    back,
  );
}
