import type { TargetAccount } from '../../domain/account';
import type { SerializedError } from '../../domain/errors';
import type { StepChange } from '../../domain/request-report';

/** What one step of a request ends with; applied changes are kept even when it fails. */
export interface StepOutcome {
  ok: boolean;
  changes: StepChange[];
  notices: string[];
  error?: SerializedError;
}

/** What the steps of one request share: the account as last seen on the target. */
export interface RequestState {
  connector: string;
  accountId: string;
  /** undefined: not looked up yet; null: absent on the target. */
  account: TargetAccount | null | undefined;
}

export function failed(
  error: SerializedError,
  changes: StepChange[] = [],
  notices: string[] = [],
): StepOutcome {
  return { ok: false, changes, notices, error };
}

/** The step's account is absent on the target. */
export function accountNotFound(state: RequestState): SerializedError {
  return {
    code: 'ACCOUNT_NOT_FOUND',
    message: `account "${state.accountId}" not found on connector "${state.connector}"`,
    retryable: false,
    object: state.accountId,
  };
}

export function succeeded(changes: StepChange[] = [], notices: string[] = []): StepOutcome {
  return { ok: true, changes, notices };
}
