import type { TargetAccount } from './account';
import type { SerializedError } from './errors';

/** The direct memberships of one account as read from the target (a replica: it may lag). */
export interface MembershipRead {
  /** IDs of the groups the account is a direct member of (within the scope asked for). */
  groupIds: string[];
  /** Display names of the groups seen or asked for, by ID, for messages and the journal. */
  names: Record<string, string>;
  /** Things the operator should know: a group whose members could not be read, a fallback used. */
  notices: string[];
  /**
   * Groups asked to confirm an absence (`confirmAbsent`) that the read did not show the
   * account in, but whose "not a member" rests on nothing the target vouches for: a member
   * list it may cut short, a filter not yet seen to find a member (scim-interop.md). Whether
   * the account is a member there is not known.
   */
  unproven?: string[];
  /**
   * The connector believed its own "not a member" when it made this read: its target had
   * given it the evidence that its answer about a member holds (SCIM: the members filter had
   * shown it a member, the filter's positive control). That evidence lives in the worker
   * that made the read; a later read of the same step, made perhaps by a worker started
   * since (a restart), is handed it (`ReadMembershipsInput.absenceVouchedBefore`).
   */
  absenceVouched?: true;
}

/**
 * What the target answered to one membership write (DESIGN invariant 9: the write's own
 * answer decides what was effective, never a read):
 * - `applied`: the target says it changed (Graph 204 on `$ref`);
 * - `already`: the target says it was already so (Graph 400 "already exist" / 404 on remove,
 *   SCIM 409 on add or `noTarget` on remove);
 * - `acknowledged`: accepted, with no word on the state before (SCIM 200/204);
 * - `accountNotFound`: the target does not know the member (yet: a new object may not be
 *   visible to writes for a moment); nothing was written;
 * - `unanswered`: the write was sent and its answer lost (a reset, a gateway 5xx, a timeout,
 *   after every retry): the step machine's own entry, never a connector's. It may have been
 *   applied; only a read-back that shows it in place makes it a change (DESIGN invariant 11).
 */
export type MembershipWriteOutcome =
  'applied' | 'already' | 'acknowledged' | 'accountNotFound' | 'unanswered';

export interface MembershipWriteAnswer {
  groupId: string;
  groupName: string;
  change: 'added' | 'removed';
  outcome: MembershipWriteOutcome;
  /**
   * An earlier attempt of this very write may have been applied without its answer arriving
   * (a reset or a gateway 5xx after sending, or an earlier run of the same operation): an
   * `already` is then this request's own change.
   */
  maybeOurs: boolean;
  /**
   * Only in answers recorded before every write was read back: the answer listed the
   * change, and that version read the group back no more. A request running when the
   * version that reads every write back was deployed replays as it ran (invariant 10).
   */
  confirmedByWrite?: boolean;
}

/**
 * A write that used the request's password last and could not delete its secret afterwards
 * (the secret store refused): the write's answer stands, and the request deletes the secret
 * at its end.
 */
export interface PasswordKept {
  passwordKept?: true;
}

/** What a create answered. */
export type CreateAccountAnswer =
  | {
      outcome: 'created';
      account: TargetAccount;
      maybeOurs: boolean;
      /** What the operator should know of the create (a password the target may ignore). */
      notices?: string[];
    }
  /**
   * The account ID was taken; the existing account was read. A connector answers this for
   * any account it finds; the create's activity keeps it only where the evidence shows the
   * account is this service's (`judgeAdoption`), else answers `taken`.
   */
  | { outcome: 'adopted'; account: TargetAccount; maybeOurs: boolean }
  /**
   * The account ID was taken by an account nothing shows is this service's (not linked in
   * its record, not made by this request): the create's precondition fails (ACCOUNT_EXISTS).
   */
  | { outcome: 'taken'; account: TargetAccount; maybeOurs: boolean }
  /** The account ID was taken, but reads do not show the account yet (replication). */
  | { outcome: 'exists'; maybeOurs: boolean }
  /**
   * The create was sent, but its answer is unusable (no id, a body that does not parse, no
   * answer at all): whether the account was made only a read can tell (DESIGN invariant 11).
   */
  | {
      outcome: 'unconfirmed';
      maybeOurs: boolean;
      /** What was wrong with the answer, after "the target created the account but ...". */
      fault: string;
      /** The step fails with this when no read shows the account. */
      error: SerializedError;
    };

/** What a delete answered: `absent` when the target did not have the account (404). */
export interface DeleteAccountAnswer {
  outcome: 'deleted' | 'absent';
  maybeOurs: boolean;
}

/**
 * What proves absent an account that a lookup by its account ID did not show, for a delete
 * of an account the service holds no link for (a read of a name may lag a create, Graph;
 * a server may compare `userName eq` case-sensitively, SCIM):
 * - `absent`: a read that cannot miss the account found none (`evidence` says which);
 * - `found`: that read shows the account;
 * - `byName`: no read can tell, but the target's delete addresses the account by its name
 *   and answers 404 only when it is truly absent (Graph: `DELETE /users/{userPrincipalName}`):
 *   the delete is sent to `account` and its answer is the evidence;
 * - `untold`: no read within reach could tell (`reason`): the delete fails "could not tell".
 */
export type UnlinkedAbsence =
  | { outcome: 'absent'; evidence: string }
  | { outcome: 'found'; account: TargetAccount }
  | { outcome: 'byName'; account: TargetAccount }
  | { outcome: 'untold'; reason: string };

/** What a lock or unlock answered. */
export interface SetEnabledAnswer {
  /**
   * The state the answer showed. No connector sets it any more (a server may answer from the
   * request, not from what it stored); answers in histories recorded before still carry it.
   */
  seen?: boolean;
}
