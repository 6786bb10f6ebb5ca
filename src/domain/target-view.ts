/** What a member of a group is: an account, a nested group, or something else (a device, a contact). */
export type MemberKind = 'user' | 'group' | 'other';

/** A member of a group as a read listed it. */
export interface ViewMember {
  kind: MemberKind;
  /** Its name where the list gave one (SCIM `display`, or the userName used as member value). */
  name?: string;
}

/** An account as a reconciliation read saw it. */
export interface ViewAccount {
  /** The target's own id. */
  id: string;
  /** How member lists name it: its object id (Graph), its userName or its id (SCIM, `memberValue`). */
  key: string;
  /** Its name on the target: userName, userPrincipalName. */
  name?: string;
  /** Whether it is enabled (SCIM `active`, Graph `accountEnabled`), where the read showed it. */
  enabled?: boolean;
}

/**
 * The target as one reconciliation run read it in bulk (issue 18): the direct members of the
 * managed groups, and the accounts. Only what was read is known: a group whose members could
 * not be read, or accounts read in part, say nothing, so nothing is concluded from them.
 */
export interface TargetView {
  /** Managed groups whose members were read: member key -> what the member is. */
  members: Map<string, Map<string, ViewMember>>;
  /** Managed groups whose members could not be read, and why. */
  unreadGroups: Map<string, string>;
  /** Accounts by target id. */
  accounts: Map<string, ViewAccount>;
  /** Whether `accounts` holds every account of the target: only then is an absent one gone. */
  accountsComplete: boolean;
  /** Why the accounts are not complete, when they are not. */
  accountsUnread?: string;
  /** How the members and the accounts were read, for the findings' evidence. */
  sources: { members: string; accounts: string };
}

/** An empty view: nothing read yet. */
export function emptyTargetView(sources: TargetView['sources']): TargetView {
  return {
    members: new Map(),
    unreadGroups: new Map(),
    accounts: new Map(),
    accountsComplete: false,
    sources,
  };
}

/**
 * A second read of one account (issue 18: "every finding is confirmed by a second read"):
 * whether it exists, its state, and whether it is a direct member of each group asked about.
 * What the read could not tell is absent.
 */
export interface AccountRecheck {
  /** The target id asked about. */
  targetId: string;
  exists?: boolean;
  enabled?: boolean;
  name?: string;
  /** Group id -> direct member or not, for the groups asked about that the read could tell. */
  memberOf: Record<string, boolean>;
  /** The reads, for the findings' evidence. */
  evidence: string[];
  /** Why the read could not tell, when it could not. */
  unread?: string;
}

/** What to read again about one account or member. */
export interface RecheckItem {
  targetId: string;
  /** How member lists name it, spelled as the target spells it (`memberValue`, never the compared form). */
  key: string;
  /**
   * Its name on the target, where known: a member's the service does not link, or the name a
   * linked account's ID gives it. A member list may name the account by it.
   */
  name?: string;
  /** Groups to tell direct membership of. */
  groupIds: string[];
  /** Whether its existence and state are needed. */
  account: boolean;
}
