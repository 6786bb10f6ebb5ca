import type { AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';
import type { FoundLaterChange } from './lost-writes';

/**
 * How a write showed on the target: the reads after it until one showed it (`visible`), or
 * until the visibility window ended, and the time that took. Absent where the step did
 * not read back (the write's own answer confirmed it, or nothing was written).
 */
export interface VerificationMeasure {
  reads: number;
  elapsedMs: number;
  visible: boolean;
}

/** What one step ends with; effective changes are kept even when it fails (nothing goes unrecorded). */
export interface StepOutcome {
  ok: boolean;
  changes: EffectiveChange[];
  notices: string[];
  error?: SerializedError;
  /** What the service's record of the account learns from this step. */
  record?: AccountRecordUpdate;
  /**
   * Changes of earlier requests whose answers were lost, that this step found in place:
   * journaled as theirs (lost-writes.ts), never as this step's.
   */
  foundLater?: FoundLaterChange[];
  /** The read-back of its write, for the verification metrics. */
  verification?: VerificationMeasure;
  /** It used the request's password last but could not delete its secret (`PasswordKept`). */
  passwordKept?: true;
}

/** The outcome with the read-back that verified (or failed to verify) its write. */
export function withVerification(
  outcome: StepOutcome,
  back: { reads: number; elapsedMs: number; confirmed: boolean },
): StepOutcome {
  return {
    ...outcome,
    verification: { reads: back.reads, elapsedMs: back.elapsedMs, visible: back.confirmed },
  };
}

export function succeeded(
  changes: EffectiveChange[] = [],
  notices: string[] = [],
  record?: AccountRecordUpdate,
): StepOutcome {
  return { ok: true, changes, notices, ...(record === undefined ? {} : { record }) };
}

export function failed(
  error: SerializedError,
  changes: EffectiveChange[] = [],
  notices: string[] = [],
  record?: AccountRecordUpdate,
): StepOutcome {
  return { ok: false, changes, notices, error, ...(record === undefined ? {} : { record }) };
}
