import type { AccountChanges, AccountProfile, TargetAccount } from './account';
import type { AccountRecord, AccountRecordUpdate } from './account-record';
import type { JournalEntry } from './journal-entry';
import type { GroupSelector } from './provisioning-request';
import type { IoResult } from './step-machine';
import type { MembershipRead, MembershipWriteAnswer, UnlinkedAbsence } from './target-answers';

/**
 * The operations a step machine asks for: in production each is an activity of the same
 * name (src/workflows/activities), one target call or one store call each.
 */
export const STEP_OPS = {
  findAccount: 'findAccount',
  readAccount: 'readAccount',
  createAccount: 'createAccount',
  updateAccount: 'updateAccount',
  setAccountEnabled: 'setAccountEnabled',
  setPassword: 'setPassword',
  deleteAccount: 'deleteAccount',
  lookUpRoles: 'lookUpRoles',
  resolveGroup: 'resolveGroup',
  listManagedGroups: 'listManagedGroups',
  readMemberships: 'readMemberships',
  writeMemberships: 'writeMemberships',
  withdrawIntent: 'withdrawIntent',
} as const;

export type StepOp = (typeof STEP_OPS)[keyof typeof STEP_OPS];

/** Inputs are JSON and never hold a secret (DESIGN invariant 5): passwords travel by name. */
export interface ConnectorInput {
  connector: string;
}

/**
 * The account by the service's record (then read by the target's id) or, with no record,
 * by its account ID. Answers {@link AccountLookup}.
 */
export interface FindAccountInput extends ConnectorInput {
  accountId: string;
  /** The record as stored, when the request holds it already: not read again. */
  stored?: AccountRecord | null;
  /**
   * Revision 5 (`StepContext.provesAbsence`), for a delete: an account neither the record
   * links nor the lookup shows comes back with what proves it absent (`absence`).
   */
  provesAbsence?: true;
}

/** The account as a read showed it (null: the read found nothing) and the service's record. */
export interface AccountLookup {
  account: TargetAccount | null;
  record: AccountRecord | null;
  /** With `provesAbsence`, for an account nothing linked or showed: what proves it absent. */
  absence?: UnlinkedAbsence;
}

export interface AccountInput extends ConnectorInput {
  account: TargetAccount;
}

/**
 * A write that may have to tell its own earlier attempt from someone else's change carries
 * an intent key: the operation records it before writing (DESIGN invariant 1).
 */
export interface IntentInput {
  intentKey: string;
  /**
   * The UTC day the request was received (`YYYY-MM-DD`), added by the orchestration: the
   * intent is kept, and purged, with that day's. Absent in a request accepted before intents
   * were kept by day.
   */
  intentDay?: string;
}

export interface CreateAccountInput extends ConnectorInput, IntentInput {
  profile: AccountProfile;
  /** Name of the transient password secret; the secret stays for later steps unless `discardAfterUse`. */
  passwordSecret?: string;
  discardAfterUse?: boolean;
  /** The record as stored, when the request holds it already: not read again. */
  stored?: AccountRecord | null;
  /**
   * Revision 4 (`StepContext.provesOwnCreate`): an account the create meets under its ID is
   * adopted only on evidence that it is this service's, else answered `taken`. Absent: adopted
   * by name, as before, so that a request accepted earlier ends as its history has it.
   */
  provesOwnCreate?: true;
}

/**
 * A write the step reads back at once (revision 3, `StepContext.foldsReadBack`): with
 * `readBack`, the operation reads the account once the write is answered and answers
 * {@link AccountWriteReadBack}. Verification only: a read that fails comes back as its error,
 * the write not sent again (DESIGN invariant 9).
 */
export interface ReadsBackInput {
  readBack?: true;
}

/**
 * What an account write with `readBack` answers: the write's answer and the read after; no
 * read where the answer leaves nothing to verify (a delete of an account already gone).
 */
export interface AccountWriteReadBack<T> {
  answer: T;
  readBack?: IoResult<TargetAccount | null>;
}

export interface UpdateAccountInput extends AccountInput, ReadsBackInput {
  changes: AccountChanges;
}

export interface SetEnabledInput extends AccountInput, ReadsBackInput {
  enabled: boolean;
}

export interface SetPasswordInput extends AccountInput, IntentInput {
  passwordSecret: string;
  discardAfterUse: boolean;
}

export type DeleteAccountInput = AccountInput & IntentInput & ReadsBackInput;

export interface LookUpRolesInput extends ConnectorInput {
  selectors: GroupSelector[];
}

export interface ResolveGroupInput extends ConnectorInput {
  selector: GroupSelector;
}

export interface ReadMembershipsInput extends AccountInput {
  groupIds: string[];
  /**
   * Groups where "not a member" decides something (a verdict, what is written or journaled):
   * the groups read back after the writes, and before them those the step takes the account
   * out of. The connector does not answer "not a member" in one of them on weaker evidence
   * than its target gives (DESIGN invariant 11): the target's own answer about this member
   * rather than a member list it may cut short, a list rather than a filter not yet seen to
   * match anyone.
   */
  confirmAbsent?: string[];
  /**
   * An earlier read of the same step vouched for its connector's "not a member"
   * (`MembershipRead.absenceVouched`): the connector believes its target's answer as that
   * read did, even in a worker that has not seen the evidence itself (one started since:
   * the earlier read is in the orchestration's history, not in this worker's memory).
   */
  absenceVouchedBefore?: true;
}

/** At most `membershipWriteBatchSize` changes: one write call. */
export interface WriteMembershipsInput extends AccountInput, IntentInput {
  add: string[];
  remove: string[];
  names: Record<string, string>;
  /** Groups the role catalogue vouches are writable: the target need not be asked again. */
  writable: string[];
  /**
   * The step's first read-back, made by the same operation once the write is answered (the
   * machine reads back at once after this write: no wait between). Verification only: it
   * never changes the write's answers, and a read that fails comes back as its error, the
   * write not sent again (DESIGN invariant 9). Answered with {@link MembershipWriteReadBack}.
   */
  readBack?: Pick<ReadMembershipsInput, 'groupIds' | 'confirmAbsent' | 'absenceVouchedBefore'>;
}

/** What a membership write with `readBack` answers: the write's answers and the read after. */
export interface MembershipWriteReadBack {
  answers: MembershipWriteAnswer[];
  readBack: IoResult<MembershipRead>;
}

/**
 * A step's effective changes and record update, written together under the request's lease
 * (DESIGN invariant 1 and 7), the lease released with them when nothing follows. Answers the
 * record as stored afterwards and the row's new version.
 */
export interface RecordStepInput {
  connector: string;
  accountId: string;
  /** The lease holder and when its lease ends (ms). */
  owner: string;
  leaseExpiresAtMs: number;
  /** The row's version as the holder last wrote it; absent: read it. */
  etag?: string;
  /** The step's entries, and those of the steps before it the commit carries (each keyed by its own step). */
  entries: JournalEntry[];
  update?: AccountRecordUpdate;
  /**
   * The record updates of the steps before this one whose commits this one carries
   * (revision 3: a step followed at once by another is committed with it), in step order:
   * applied before `update`.
   */
  earlier?: AccountRecordUpdate[];
  /**
   * The step each of `earlier` belongs to, in the same order, and the step of `update`: a
   * commit run again in parts skips the updates of steps its run before finished. Absent
   * (commits scheduled before they were named): every update is applied.
   */
  earlierSteps?: number[];
  step?: number;
  /** The record as stored (the holder is its only writer): with `etag`, no read. */
  stored: AccountRecord | null;
  release: boolean;
}
