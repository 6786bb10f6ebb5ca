import type { TargetAccount } from './account';
import type { AccountRecordUpdate } from './account-record';
import type { SerializedError } from './errors';
import { call, now, type Machine } from './step-machine';
import { STEP_OPS, type AccountLookup } from './step-ops';
import { iso, type StepContext } from './step-context';
import type { UnlinkedAbsence } from './target-answers';

export type AccountResolution =
  | { account: TargetAccount | null; record?: AccountRecordUpdate; absence?: UnlinkedAbsence }
  | { error: SerializedError };

/**
 * The step's account, looked up once per request: by the service's record (the target's
 * object id), else by its account ID. An account the record knows but a read does not show
 * is still addressed by its id: a read never cancels a write (DESIGN invariant 9); the
 * write's own answer tells whether it is there. An account found without a record is linked.
 * `provesAbsence` (a delete, revision 5): an account nothing links or shows comes with what
 * proves it absent, looked up again if an earlier step found nothing without asking that.
 */
export function* resolveAccount(
  context: StepContext,
  provesAbsence = false,
): Machine<AccountResolution> {
  const { handle } = context;
  if (handle.account !== undefined && !(handle.account === null && provesAbsence)) {
    return { account: handle.account };
  }
  const found = yield* call<AccountLookup>(STEP_OPS.findAccount, {
    connector: context.connector,
    accountId: context.accountId,
    ...(handle.stored === undefined ? {} : { stored: handle.stored }),
    ...(provesAbsence ? { provesAbsence: true as const } : {}),
  });
  if (!found.ok) return { error: found.error };
  const readAt = yield* now();
  const { account, record } = found.value;
  handle.record = record;
  if (account !== null) {
    handle.account = account;
    handle.seen = true;
    handle.seenAt = readAt;
    if (record?.targetId === account.id) return { account };
    return { account, record: { link: { targetId: account.id, linkedAt: iso(readAt) } } };
  }
  if (record !== null) {
    handle.account = {
      id: record.targetId,
      accountId: context.accountId,
      enabled: record.enabled ?? true,
    };
    handle.seen = false;
    return { account: handle.account };
  }
  handle.account = null;
  return found.value.absence === undefined
    ? { account: null }
    : { account: null, absence: found.value.absence };
}
