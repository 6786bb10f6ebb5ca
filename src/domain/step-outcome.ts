import type { AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import type { EffectiveChange } from './journal-entry';

/** What one step ends with; effective changes are kept even when it fails (nothing goes unrecorded). */
export interface StepOutcome {
  ok: boolean;
  changes: EffectiveChange[];
  notices: string[];
  error?: SerializedError;
  /** What the service's record of the account learns from this step. */
  record?: AccountRecordUpdate;
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
