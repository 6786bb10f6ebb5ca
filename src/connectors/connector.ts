import type { HealthProbe } from '../domain/health-probe';
import type { AccountChanges, AccountProfile, TargetAccount } from '../domain/account';
import type { ConnectorCapabilities } from '../domain/capabilities';
import type { GroupChangeFeed } from '../domain/catalogue-changes';
import type { CredentialState } from '../domain/credential-expiry';
import type { ErrorCode, ProvisioningError } from '../domain/errors';
import type { GroupRef } from '../domain/group';
import type { GroupStructure, InheritedMembershipsResult } from '../domain/nested-groups';
import type { ReconciliationReads } from '../domain/reconciliation-reads';
import type {
  CreateAccountAnswer,
  DeleteAccountAnswer,
  MembershipRead,
  MembershipWriteAnswer,
  SetEnabledAnswer,
  UnlinkedAbsence,
} from '../domain/target-answers';

export type {
  ConnectorCapabilities,
  CreateAccountAnswer,
  DeleteAccountAnswer,
  MembershipRead,
  MembershipWriteAnswer,
  SetEnabledAnswer,
  UnlinkedAbsence,
};

/** A connector kind's name (`scim`, `graph`, ...): what a kind can do is its descriptor's. */
export type ConnectorKind = string;

/** One finding of a status check, shown to the operator as it is. */
export interface StatusFinding {
  name: string;
  /**
   * `granted`, `missing` and `not verified` are permission findings: `granted` only on
   * proof (DESIGN invariant 11), `not verified` where nothing the service saw tells.
   */
  outcome: 'ok' | 'failed' | 'granted' | 'missing' | 'not verified';
  /** What a permission finding rests on: a probe read just made (proof) or the token's roles claim (a hint). */
  evidence?: 'probe' | 'token';
  detail: string;
}

export interface StatusResult {
  connector: string;
  kind: ConnectorKind;
  /** Whether the connection works, in the spec's sense for the connector kind. */
  ok: boolean;
  summary: string;
  findings: StatusFinding[];
  /** When the check failed on an error of the service's catalogue: its code (e.g. GRAPH_CLIENT_SECRET_EXPIRED). */
  error?: { code: ErrorCode; message: string };
  /** The credential's expiry and the days left, where the connector knows it. */
  credential?: CredentialState;
}

export interface LastLogonResult {
  status: 'found' | 'none found' | 'not available';
  /** ISO time, when found. */
  value?: string;
  /** The attribute or property it came from, or why it is not available. */
  detail?: string;
}

/**
 * The most groups one live search answers with. A search that matches more is refused with
 * a message to narrow it rather than cut short: a list that silently stops is a verdict the
 * service did not see (DESIGN invariant 11).
 */
export const SEARCH_MATCH_LIMIT = 1000;

/**
 * The Connector port (DESIGN: src/connectors). Methods that act on an account take it by the
 * target's id. Every write is idempotent where the spec allows it (invariant 4) and says
 * what the target answered: "already a member", "not a member", "already deleted" are
 * answers, not failures, and the step machines decide from them what was effective
 * (invariant 9). Reads may lag writes; no method waits for replication: waiting is the
 * step machines' (durable timers).
 */
export interface Connector {
  readonly name: string;
  readonly kind: ConnectorKind;
  readonly capabilities: ConnectorCapabilities;

  /**
   * The spec's "Check status". With `probe`, a connector that can also proves its read
   * permissions with probe reads (Graph); others ignore it.
   */
  checkStatus(options?: { probe?: boolean }): Promise<StatusResult>;
  /**
   * Present where the connector's credential can expire (Graph: the client secret): when,
   * by the secret store or the connector's settings, and the days left by the connector's
   * clock; undefined when nothing says.
   */
  credentialState?(): Promise<CredentialState | undefined>;
  /**
   * The share (0 to 1) of the target's quota the connector's pacing has used in its window,
   * for kinds paced to a quota (Graph); absent for the others.
   */
  quotaUtilization?(): number;
  /**
   * The account ID as the target tells accounts apart: IDs the target takes for one account
   * give one key (SCIM: `userName` is case-insensitive, RFC 7643; Graph: a UPN is
   * case-insensitive, and a bare name is completed with the UPN domain). The service keeps
   * the account's lease and record under it, so that two requests for one account never
   * write it at once (DESIGN invariant 7). No call to the target; REQUEST_INVALID for an ID
   * the target cannot take.
   */
  accountKey(accountId: string): string;
  /** Every account on the target, page by page: memory does not grow with their number. */
  listAccounts(): AsyncIterable<TargetAccount>;
  /** Looks the account up by its account ID (a read: it may lag); undefined when absent. */
  findAccount(accountId: string): Promise<TargetAccount | undefined>;
  /**
   * What proves absent an account `findAccount` did not show, before a delete concludes it
   * has nothing to delete ({@link UnlinkedAbsence}); never a write.
   */
  proveAbsent(accountId: string): Promise<UnlinkedAbsence>;
  /**
   * Reads the account by the target's id (a read: it may lag), with the profile attributes
   * the target reads back; undefined when the read does not find it.
   */
  readAccount(account: TargetAccount): Promise<TargetAccount | undefined>;
  /**
   * Creates the account enabled. A taken account ID is adopted when a read shows the
   * existing account, or answered `exists` when reads do not show it yet.
   */
  createAccount(profile: AccountProfile, password?: string): Promise<CreateAccountAnswer>;
  /** ACCOUNT_NOT_FOUND when the target does not know the account (a new one may not be visible yet). */
  updateAccount(account: TargetAccount, changes: AccountChanges): Promise<void>;
  setPassword(account: TargetAccount, password: string): Promise<void>;
  /**
   * Why the target would refuse a set password before it is sent, on what it declares of
   * itself (SCIM: `changePassword: false`); undefined when nothing it declares refuses it.
   * Reads only: `setPassword` and a preview of it ask the same (DESIGN invariant 10).
   */
  passwordRefusal?(accountId: string): Promise<ProvisioningError | undefined>;
  /** Lock (false) or unlock (true): one write, no read-back (the step machine reads back). */
  setEnabled(account: TargetAccount, enabled: boolean): Promise<SetEnabledAnswer>;
  /** Deletes the account; `absent` when the target did not have it. */
  deleteAccount(account: TargetAccount): Promise<DeleteAccountAnswer>;

  /** The group catalogue, page by page: memory does not grow with its size. */
  importGroups(): AsyncIterable<GroupRef>;
  /**
   * Present where the target can say what changed in its group catalogue since the last
   * import (Graph: `groups/delta`): incremental imports read only that. Absent: every
   * import reads the whole catalogue.
   */
  readonly groupChanges?: GroupChangeFeed;
  /**
   * Present where the service can reconcile the target (issue 18): bulk reads of the managed
   * groups' members and of the accounts, and second reads that confirm what they showed.
   */
  readonly reconciliation?: ReconciliationReads;
  /**
   * The group with this id as the target shows it now; undefined only when the target
   * answers, in its own error body, that it has no such group (a bare 404 from a proxy
   * throws TARGET_RESPONSE_INVALID): the proof a catalogue import needs before it
   * marks a role gone. Any other failure throws.
   */
  readGroup(groupId: string): Promise<GroupRef | undefined>;
  /** The group with exactly this display name, undefined when there is none. */
  findGroup(displayName: string): Promise<GroupRef | undefined>;
  /**
   * Groups whose display name contains the text, every page of the target's answer read; more
   * than SEARCH_MATCH_LIMIT matches is REQUEST_INVALID asking to narrow the search.
   */
  searchGroups(text: string): Promise<GroupRef[]>;

  /**
   * Reads the account's direct memberships: all of them, or with scope `named` only
   * among `groupIds` (spec: read the current members before writing). A read: it may lag.
   * In a `confirmAbsent` group "not a member" decides something: the read says it only on
   * the best evidence the target gives (a member list may be cut short; a members filter
   * not yet seen to match anyone may be blind to members). `absenceVouchedBefore`: an earlier
   * read of the same step vouched for this connector's "not a member"
   * (`MembershipRead.absenceVouched`), perhaps in a worker since restarted: the evidence it
   * had holds for this read too.
   */
  readMemberships(
    account: TargetAccount,
    groupIds: readonly string[],
    confirmAbsent?: readonly string[],
    absenceVouchedBefore?: boolean,
  ): Promise<MembershipRead>;
  /**
   * Writes removals, then additions (spec: steps 2 and 3), one answer per change. Refuses
   * groups whose members cannot be written before any write, except those `writable` names
   * (the role catalogue vouches for them). A failure after some writes carries their answers
   * in `details.written`.
   */
  writeMemberships(
    account: TargetAccount,
    changes: { add: readonly string[]; remove: readonly string[] },
    names: Record<string, string>,
    writable?: readonly string[],
  ): Promise<MembershipWriteAnswer[]>;

  readLastLogon(account: TargetAccount): Promise<LastLogonResult>;

  /**
   * Present where the target nests groups (spec: Nested groups, connector B): the structure
   * below a group, up to 500 groups and 32 levels; cycles and incomplete reads are notices.
   */
  readGroupStructure?(groupId: string): Promise<GroupStructure>;
  /** Present where the target nests groups: "Effective inherited memberships", never written. */
  readInheritedMemberships?(account: TargetAccount): Promise<InheritedMembershipsResult>;

  /**
   * The quarantine probe (issue 14): one read that the target, when healthy, answers in its
   * protocol's shape; `healthy` only on that answer (DESIGN invariant 11). Throws as any call
   * does when no answer came (unreachable, timeout, a token refused).
   */
  probeHealth(): Promise<HealthProbe>;

  /** Releases pools and sockets. */
  close(): Promise<void>;
}
