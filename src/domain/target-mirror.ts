import type { AccountFact, MembershipFact } from './reconciliation-reads';
import type { TargetView, ViewAccount, ViewMember } from './target-view';

/**
 * The service's copy of what it last read of a target for reconciliation (issue 18): the
 * managed groups' direct members and the accounts that matter (linked ones, and members of
 * managed groups). A whole read builds it; where the target tracks changes (Graph delta
 * queries), a read from the cursor applies only the changes, and the copy is kept between
 * runs. It remembers what it changed, so only that is written back.
 */
export class TargetMirror {
  readonly members = new Map<string, Map<string, ViewMember>>();
  readonly accounts = new Map<string, ViewAccount>();
  readonly changedGroups = new Set<string>();
  readonly changedAccounts = new Set<string>();
  /** Groups a whole read of this run has listed (a large group comes in parts, which add up). */
  private readonly listed = new Set<string>();

  /** Starts a whole read of the groups' members: what it does not list is not known. */
  startWholeMembers(): void {
    for (const groupId of this.members.keys()) this.changedGroups.add(groupId);
    this.members.clear();
    this.listed.clear();
  }

  /** Starts a whole read of the accounts: one it does not list is gone. */
  startWholeAccounts(): void {
    for (const id of this.accounts.keys()) this.changedAccounts.add(id);
    this.accounts.clear();
  }

  /** Applies one fact of a members read; only `managed` groups are kept. */
  applyMembers(fact: MembershipFact, managed: ReadonlySet<string>): void {
    if (!managed.has(fact.groupId)) return;
    switch (fact.kind) {
      case 'members': {
        let members = this.members.get(fact.groupId);
        if (members === undefined || !this.listed.has(fact.groupId)) {
          members = new Map();
          this.members.set(fact.groupId, members);
          this.listed.add(fact.groupId);
        }
        for (const [key, member] of fact.members) members.set(key, member);
        break;
      }
      case 'member': {
        const members = this.members.get(fact.groupId);
        // A group the copy does not hold is read whole by the caller, not patched.
        if (members === undefined) return;
        if (fact.added) members.set(fact.key, fact.member);
        else members.delete(fact.key);
        break;
      }
      case 'groupGone':
      case 'groupUnread':
        this.members.delete(fact.groupId);
        break;
    }
    this.changedGroups.add(fact.groupId);
  }

  /** Applies one fact of an accounts read; `keep` says which accounts matter. */
  applyAccount(fact: AccountFact, keep: (account: ViewAccount) => boolean): void {
    if (fact.kind === 'accountGone') {
      if (this.accounts.delete(fact.id)) this.changedAccounts.add(fact.id);
      return;
    }
    const known = this.accounts.has(fact.account.id);
    if (!known && !keep(fact.account)) return;
    this.accounts.set(fact.account.id, fact.account);
    this.changedAccounts.add(fact.account.id);
  }

  /** Forgets accounts that no longer matter (neither linked nor a member of a managed group). */
  prune(keep: (account: ViewAccount) => boolean): void {
    for (const [id, account] of this.accounts) {
      if (keep(account)) continue;
      this.accounts.delete(id);
      this.changedAccounts.add(id);
    }
  }

  /** Every account (`user`) member key the read groups list. */
  memberKeys(): Set<string> {
    const keys = new Set<string>();
    for (const members of this.members.values()) {
      for (const [key, member] of members) if (member.kind === 'user') keys.add(key);
    }
    return keys;
  }

  /** The copy as a view, with what this run could not read. */
  view(
    sources: TargetView['sources'],
    unread: { groups: Map<string, string>; accounts?: string },
  ): TargetView {
    return {
      members: this.members,
      unreadGroups: unread.groups,
      accounts: this.accounts,
      accountsComplete: unread.accounts === undefined,
      ...(unread.accounts === undefined ? {} : { accountsUnread: unread.accounts }),
      sources,
    };
  }
}
