import type { AccountChanges, AccountProfile, TargetAccount } from '../domain/account';
import type { GroupRef } from '../domain/group';
import type { GroupStructure, InheritedMembershipsResult } from '../domain/nested-groups';
import type { MembershipPlan } from '../domain/membership-plan';

export type ConnectorKind = 'scim' | 'graph';

/** One finding of a status check, shown to the operator as it is. */
export interface StatusFinding {
  name: string;
  outcome: 'ok' | 'failed' | 'missing' | 'granted' | 'unknown';
  detail: string;
}

export interface StatusResult {
  connector: string;
  kind: ConnectorKind;
  /** Whether the connection works, in the spec's sense for the connector kind. */
  ok: boolean;
  summary: string;
  findings: StatusFinding[];
}

export interface CreateAccountResult {
  account: TargetAccount;
  /** `adopted`: the account existed already and is the same account (409 then lookup). */
  outcome: 'created' | 'adopted';
}

export interface LastLogonResult {
  status: 'found' | 'none found' | 'not available';
  /** ISO time, when found. */
  value?: string;
  /** The attribute or property it came from, or why it is not available. */
  detail?: string;
}

/** The direct memberships of one account as read from the target. */
export interface MembershipRead {
  /** IDs of the groups the account is a direct member of (within the scope asked for). */
  groupIds: string[];
  /** Display names of the groups seen or asked for, by ID, for messages and the journal. */
  names: Record<string, string>;
  /** Things the operator should know: a group whose members could not be read, a fallback used. */
  notices: string[];
}

export interface AppliedMembershipChange {
  groupId: string;
  groupName: string;
  change: 'added' | 'removed';
  /**
   * What the write's own answer showed: true/false when the answer carried the group's
   * members, undefined when it did not (the change is then verified by a read).
   */
  confirmedByWrite?: boolean;
  /**
   * The target said the membership was already as requested ("already a member", "not a
   * member"): the step is done, but this is no effective change and is not journaled.
   */
  alreadyInPlace?: boolean;
}

/** What the connector's target can do, so that callers never branch on the connector kind. */
export interface ConnectorCapabilities {
  /**
   * How long memberships may take to become visible after a write; the re-read loop runs
   * for at most this long (spec: Membership write procedure, step 5: 30 s for Graph).
   */
  membershipVisibilityWindowMs: number;
  /**
   * `all`: a membership read returns every direct group of the account, so unexpected
   * groups can be named. `named`: only the groups asked about can be read.
   */
  membershipReadScope: 'all' | 'named';
  /**
   * How many membership changes one write call can carry: 1 where each group is its own
   * PATCH (SCIM), 20 where a `$batch` envelope carries them (Graph). Orchestrations give
   * each activity at most this many, so an activity makes one call.
   */
  membershipWriteBatchSize: number;
}

/**
 * The Connector port (DESIGN: src/connectors). Methods that act on an account take the
 * account as found on the target. Every method is idempotent where the spec allows it
 * (invariant 4): "already a member", "not a member", "already deleted" count as done.
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
  /** Every account on the target, page by page: memory does not grow with their number. */
  listAccounts(): AsyncIterable<TargetAccount>;
  /** Looks the account up by its account ID; undefined when absent. */
  findAccount(accountId: string): Promise<TargetAccount | undefined>;
  /** Creates the account enabled; adopts an existing account with the same account ID. */
  createAccount(profile: AccountProfile, password?: string): Promise<CreateAccountResult>;
  updateAccount(account: TargetAccount, changes: AccountChanges): Promise<void>;
  setPassword(account: TargetAccount, password: string): Promise<void>;
  /** Lock (false) or unlock (true). */
  setEnabled(account: TargetAccount, enabled: boolean): Promise<void>;
  /** Deletes the account; `absent` when it was already gone. */
  deleteAccount(account: TargetAccount): Promise<'deleted' | 'absent'>;

  /** The group catalogue, page by page: memory does not grow with its size. */
  importGroups(): AsyncIterable<GroupRef>;
  /** The group with exactly this display name, undefined when there is none. */
  findGroup(displayName: string): Promise<GroupRef | undefined>;
  /** Groups whose display name contains the text. */
  searchGroups(text: string): Promise<GroupRef[]>;

  /**
   * Reads the account's direct memberships: all of them, or with scope `named` only
   * among `groupIds` (spec: read the current members before writing).
   */
  readMemberships(account: TargetAccount, groupIds: readonly string[]): Promise<MembershipRead>;
  /**
   * Writes a plan's removals, then its additions (spec: steps 2 and 3). Refuses groups
   * whose members cannot be written before any write.
   */
  applyMembershipPlan(
    account: TargetAccount,
    plan: MembershipPlan,
    names: Record<string, string>,
  ): Promise<AppliedMembershipChange[]>;

  readLastLogon(account: TargetAccount): Promise<LastLogonResult>;

  /**
   * Present where the target nests groups (spec: Nested groups, connector B): the structure
   * below a group, up to 500 groups and 32 levels; cycles and incomplete reads are notices.
   */
  readGroupStructure?(groupId: string): Promise<GroupStructure>;
  /** Present where the target nests groups: "Effective inherited memberships", never written. */
  readInheritedMemberships?(account: TargetAccount): Promise<InheritedMembershipsResult>;

  /** Releases pools and sockets. */
  close(): Promise<void>;
}
