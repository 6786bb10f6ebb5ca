import { sameValue } from '../truth/same-value.js';
import type { TruthChange } from '../truth/truth-event.js';
import type { TruthLog } from '../truth/truth-log.js';
import type { ScimMember, ScimResource, ScimStore } from './scim-store.js';

/** Attributes whose changes are events of their own, or no change of the account at all. */
const NOT_PROFILE = new Set(['id', 'meta', 'schemas', 'password', 'active']);

interface Account {
  accountId: string;
  userId: string;
}

function profileOf(user: ScimResource): ScimResource {
  return Object.fromEntries(
    Object.entries(user).filter(([name]) => !NOT_PROFILE.has(name.toLowerCase())),
  );
}

/**
 * Records the SCIM sandbox's committed changes in the truth log, from the state before
 * and after each write made through the API. Member values may be users' ids or userNames
 * (the connector's `memberValue` setting): a membership is the user's, whichever names it,
 * so adding a user under its other name is no change.
 */
export class ScimTruthRecorder {
  constructor(
    private readonly store: ScimStore,
    private readonly log: TruthLog,
    private readonly now: () => number,
  ) {}

  /** After a create (`before` undefined), a replace or a PATCH of a user. */
  userWritten(
    before: ScimResource | undefined,
    after: ScimResource,
    passwordWritten: boolean,
  ): void {
    const account = { accountId: String(after.userName), userId: String(after.id) };
    if (before === undefined) {
      this.record('account created', account);
      return;
    }
    if (!sameValue(profileOf(before), profileOf(after))) this.record('account updated', account);
    if (passwordWritten) this.record('password set', account);
    const enabled = after.active !== false;
    if (enabled !== (before.active !== false)) {
      this.record(enabled ? 'account unlocked' : 'account locked', account);
    }
  }

  /** After a user was deleted, with the groups it was a member of just before. */
  userDeleted(user: ScimResource, groupIds: readonly string[]): void {
    const account = { accountId: String(user.userName), userId: String(user.id) };
    this.record('account deleted', account);
    for (const groupId of groupIds) {
      this.record('member removed', { ...account, groupId, cascade: true });
    }
  }

  /** After a group's members changed (create, replace, PATCH). */
  membersChanged(groupId: string, before: unknown, after: unknown): void {
    const was = this.accountsOf(before);
    const is = this.accountsOf(after);
    for (const [key, account] of was) {
      if (!is.has(key)) this.record('member removed', { ...account, groupId });
    }
    for (const [key, account] of is) {
      if (!was.has(key)) this.record('member added', { ...account, groupId });
    }
  }

  /**
   * Before a patch takes these member values out of a group and puts those in: the accounts
   * they name and whether the group held each; the function it returns, called once the
   * change is stored, records the accounts whose membership changed. Costs what the patch
   * changed, whatever the size of the group.
   */
  beforeMembersChange(groupId: string, values: Iterable<ScimMember>): () => void {
    const accounts = [...this.accountsOf([...values]).values()];
    const before = accounts.map((account) => this.store.holdsAccount(groupId, account));
    return () => {
      accounts.forEach((account, i) => {
        const after = this.store.holdsAccount(groupId, account);
        if (after === before[i]) return;
        this.record(after ? 'member added' : 'member removed', { ...account, groupId });
      });
    };
  }

  /** After a group was deleted, with the members it had. */
  groupDeleted(groupId: string, members: unknown): void {
    for (const account of this.accountsOf(members).values()) {
      this.record('member removed', { ...account, groupId, cascade: true });
    }
  }

  /** Member accounts by user id; values naming no user stand for themselves, groups are left out. */
  private accountsOf(members: unknown): Map<string, Account> {
    const accounts = new Map<string, Account>();
    for (const member of Array.isArray(members) ? (members as ScimMember[]) : []) {
      const value = member.value;
      const userId = this.store.isUserId(value) ? value : this.store.findUserId(value);
      if (userId === undefined && this.store.getGroup(value) !== undefined) continue;
      const user = userId === undefined ? undefined : this.store.getUser(userId);
      const account =
        user === undefined
          ? { accountId: value, userId: value }
          : { accountId: String(user.userName), userId: String(user.id) };
      accounts.set(account.userId, account);
    }
    return accounts;
  }

  private record(
    change: TruthChange,
    event: Account & { groupId?: string; cascade?: boolean },
  ): void {
    this.log.record({ at: this.now(), change, ...event });
  }
}
