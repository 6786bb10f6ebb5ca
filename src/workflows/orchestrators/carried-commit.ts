import type { AccountRecordUpdate } from '../../domain/account-record';
import type { JournalEntry } from '../../domain/journal-entry';

/**
 * The commits of steps that ended with another step of the request right after them
 * (revision 3): not written on their own (an activity and a transaction each), but with the
 * next commit of the request. Each entry keeps its own step and time (its step's end).
 */
export interface CarriedCommit {
  /** The steps carried, in order. */
  steps: number[];
  entries: JournalEntry[];
  /** Their record updates, in step order. */
  updates: AccountRecordUpdate[];
  /** The step of each update. */
  updateSteps: number[];
}

/**
 * What is carried once the step at `step` is added to it.
 *
 * @example
 * carry(undefined, 0, journalEntriesOf(request, 0, [{ change: 'account created' }], at), { link });
 */
export function carry(
  carried: CarriedCommit | undefined,
  step: number,
  entries: readonly JournalEntry[],
  update: AccountRecordUpdate | undefined,
): CarriedCommit {
  return {
    steps: [...(carried?.steps ?? []), step],
    entries: [...(carried?.entries ?? []), ...entries],
    updates: [...(carried?.updates ?? []), ...(update === undefined ? [] : [update])],
    updateSteps: [...(carried?.updateSteps ?? []), ...(update === undefined ? [] : [step])],
  };
}

/** The request's notice when what it carried could not be written, even at its end. */
export function unrecordedNotice(carried: CarriedCommit, error: { message: string }): string {
  const steps = carried.steps.join(', ');
  return (
    `the changes of the step(s) at index ${steps} were made on the target but could not be ` +
    `recorded in the journal: ${error.message}`
  );
}
