import type { TargetAccount } from './account';
import type { AccountRecord } from './account-record';
import type { ConnectorCapabilities } from './capabilities';
import type { SerializedError } from './errors';
import { mayStillBeReplicating } from './visibility';

/** What the steps of one request share: the account as they last knew it. */
export interface AccountHandle {
  /** undefined: not looked up yet; null: absent. */
  account: TargetAccount | null | undefined;
  /** Whether a read (or the create's answer) has shown the account; else it is known by the record only. */
  seen: boolean;
  /** When that read was made (ms): a read younger than the window after a write may not show it. */
  seenAt?: number;
  /** A step of this request created the account: it is a member of no group but those the request granted. */
  createdHere?: boolean;
  /** The service's record of the account, as read or written by this request. */
  record: AccountRecord | null | undefined;
  /**
   * The record as stored (null: none; a deleted account's tombstone included), when the
   * request read it with its lease: a lookup need not read it again. Undefined: not known.
   */
  stored?: AccountRecord | null;
}

/** What every step machine knows about the request it runs in. */
export interface StepContext {
  requestId: string;
  /** Position of the step in the request (0-based): part of every journal and intent key. */
  step: number;
  connector: string;
  accountId: string;
  capabilities: ConnectorCapabilities;
  handle: AccountHandle;
  /**
   * The request was accepted before revision 2 of its orchestration (`acceptedSince`): where
   * a step of revision 2 schedules other activities or timers than revision 1 did (a lost
   * write's read-back, a commit left out), it takes revision 1's path, so that a request
   * running when revision 2 is deployed replays the history it has (DESIGN invariant 10).
   */
  replaysRevision1?: boolean;
  /**
   * Revision 3 (`acceptedSince(request, 3)`): a write the machine reads back at once
   * carries that first read back (`readBack` in a membership or account write's input), one
   * operation instead of two. Absent: the read-back is an operation of its own, as before, so that a
   * request accepted earlier replays the history it has.
   */
  foldsReadBack?: boolean;
  /**
   * Revision 3: a lock, unlock, grant or revoke that nothing confirmed leaves its state not
   * known in the record (`enabledUnconfirmed`, `unconfirmedGroups`), and the next lock or
   * unlock reads until it can tell. Absent: the record is left as before, as earlier
   * revisions did, so that a request accepted earlier schedules the commits its history has.
   */
  recordsUnconfirmed?: boolean;
  /**
   * Revision 4: a delete the read-back shows was made a deactivation (a server whose DELETE
   * only sets `active` false) journals and records the lock it was. Absent: the step fails
   * with nothing journaled or recorded, as earlier revisions did, so that a request accepted
   * earlier schedules the commits its history has.
   */
  recordsDeactivation?: boolean;
  /**
   * Revision 4: an update is confirmed only by a read that shows every value it wrote, and
   * one a read does not show (a property the target does not return, a replica that has not
   * got it) is read again within the window, then leaves the update not confirmed. Absent:
   * such a value is named in a notice and the update confirmed by the others, as before, so
   * that a request accepted earlier replays the history it has.
   */
  readsEveryValueBack?: boolean;
  /**
   * Revision 4: a create's account is this service's only on evidence (`isOwnAccount`): an
   * account a read shows after an `exists` answer is not adopted without it (ACCOUNT_EXISTS),
   * and a read that shows an unconfirmed create was not applied withdraws the create's
   * claimed intent (`withdrawIntent`). Absent: as before, so that a request accepted earlier
   * schedules what its history has.
   */
  provesOwnCreate?: boolean;
  /**
   * Accepted before revision 4: a read-back took a "not a member" that nothing the target
   * vouches for (`MembershipRead.unproven`: a member list it may cut short) as shown, a
   * revoke as verified and a grant as missing. Set, the step ends as it did then, so that a
   * request running when revision 4 is deployed replays the history it has.
   */
  believesUnprovenAbsence?: boolean;
  /**
   * Revision 5: a delete of an account neither the record links nor the lookup shows asks
   * for what proves it absent (`Connector.proveAbsent`): a read that cannot miss it, or the
   * delete sent to the account's name where the target's delete tells (Graph). Absent: one
   * lookup by name concludes "absent", as before, so that a request accepted earlier replays
   * the history it has.
   */
  provesAbsence?: boolean;
}

/** A fresh handle: nothing looked up yet. */
export function newAccountHandle(): AccountHandle {
  return { account: undefined, seen: false, record: undefined };
}

/** When the service created the account, in ms, if it did. */
export function createdAtMs(handle: AccountHandle): number | undefined {
  const at = handle.record?.createdAt;
  return at === undefined ? undefined : Date.parse(at);
}

/** Whether a "not found" about the step's account may still be replication lag. */
export function mayBeLag(context: StepContext, nowMs: number): boolean {
  return mayStillBeReplicating(
    createdAtMs(context.handle),
    nowMs,
    context.capabilities.visibilityWindowMs,
  );
}

/** The step's account is absent on the target. */
export function accountNotFound(context: StepContext, detail = ''): SerializedError {
  return {
    code: 'ACCOUNT_NOT_FOUND',
    message: `account "${context.accountId}" not found on connector "${context.connector}"${detail}`,
    retryable: false,
    object: context.accountId,
  };
}

/** A write the target answered that no read-back confirmed within the window. */
export function notConfirmed(
  input: StepContext,
  message: string,
  details: Record<string, unknown>,
): SerializedError {
  return {
    code: 'ACCOUNT_STATE_NOT_CONFIRMED',
    message: `connector "${input.connector}": ${message}`,
    retryable: false,
    object: input.accountId,
    details,
  };
}

/** ISO form of an orchestration time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
