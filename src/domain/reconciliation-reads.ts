import type { AccountRecheck, RecheckItem, ViewAccount, ViewMember } from './target-view';

/**
 * What a bulk read of group members says about one managed group: its whole member list (a
 * full read; a large group may come in several parts, which add up), one member added or
 * removed (a read of the changes since a cursor), the group gone, or its members unreadable.
 */
export type MembershipFact =
  | { kind: 'members'; groupId: string; members: [key: string, member: ViewMember][] }
  | { kind: 'member'; groupId: string; key: string; member: ViewMember; added: boolean }
  | { kind: 'groupGone'; groupId: string }
  | { kind: 'groupUnread'; groupId: string; reason: string };

/** What a bulk read of accounts says: an account as it is, or one gone. */
export type AccountFact =
  { kind: 'account'; account: ViewAccount } | { kind: 'accountGone'; id: string };

/** One page of a bulk read; the last page of a read carries the cursor for the next read. */
export interface FactPage<F> {
  facts: F[];
  cursor?: string;
}

/**
 * How a connector reads its target for reconciliation (issue 18): in bulk, never one account
 * at a time, and again, account by account, to confirm what the bulk read showed. Where the
 * target tracks changes (Graph delta queries), a read from a cursor returns only the changes
 * since; CATALOGUE_CURSOR_EXPIRED when the target no longer knows the cursor.
 */
export interface ReconciliationReads {
  /** Whether reads from a cursor return changes only (else every read is whole). */
  readonly incremental: boolean;
  /** How the bulk reads and the second reads are made, for the findings' evidence. */
  readonly sources: { members: string; accounts: string; recheck: string };
  /**
   * Every key member lists may name an account by, in the form they are compared in (its
   * object id; the SCIM member values without case: a group may hold the account under its
   * userName or its SCIM id), the form additions write first. `accountId` is the account ID,
   * or the account's name on the target.
   */
  memberKeys(account: { accountId: string; targetId: string }): string[];
  /**
   * The member value itself, spelled as the target spells it: what a second read asks the
   * target about (a `members eq` filter names the member exactly as the target stores it).
   */
  memberValue(account: { accountId: string; targetId: string }): string;
  /** The name the target gives an account ID (Graph: the bare name with the UPN domain). */
  accountName(accountId: string): string;
  /**
   * The direct members of the managed groups: every member from no cursor, else only the
   * changes since. `groupIds` may narrow the read where that is cheaper; groups outside it
   * may come too.
   */
  readMembers(
    groupIds: readonly string[],
    cursor?: string,
  ): AsyncIterable<FactPage<MembershipFact>>;
  /** Every account (its id, name and state), or from a cursor the accounts changed since. */
  readAccounts(cursor?: string): AsyncIterable<FactPage<AccountFact>>;
  /** The second read: each item's existence, state and direct memberships, as few calls as can be. */
  recheck(items: readonly RecheckItem[]): Promise<AccountRecheck[]>;
}
