import type { AccountRecord } from './account-record';
import type { DriftSubject } from './drift-finding';
import type { GroupRef } from './group';
import type { TargetView, ViewMember } from './target-view';

/** What reconciliation compares the target with (issue 18: its scope). */
export interface DriftScope {
  /** The linked accounts: the service's records (tombstones of deleted accounts left out). */
  records: readonly AccountRecord[];
  /** The managed groups: the role catalogue's present groups whose members the service writes. */
  groups: readonly GroupRef[];
  /**
   * Every key member lists may name an account by, in the compared form (a SCIM group may
   * hold it under its userName or its SCIM id: member-value-forms.ts): the form additions
   * write first. `accountId` is the account ID, or an account's name on the target.
   */
  memberKeys(account: { accountId: string; targetId: string }): readonly string[];
  /**
   * Account IDs (lower case) not judged now: a request for them runs or ended inside the
   * settle window, so reads may not show its writes yet. They are checked again after it.
   */
  skip?: ReadonlySet<string>;
  /**
   * The connector's canonical form of an account ID (`Connector.accountKey`): a finding stored
   * under another spelling of a linked account's ID is that account's. Default: the ID as is.
   */
  accountKey?(accountId: string): string;
}

export interface DriftEvaluation {
  /** What the view shows differs from the service's records: to be confirmed by a second read. */
  candidates: DriftSubject[];
  /**
   * For a subject that is not a candidate (an open finding of an earlier run): why it no longer
   * holds, or undefined when the view cannot tell (its group or account was not read, or the
   * account is skipped).
   */
  closure: (subject: DriftSubject) => Closure | undefined;
}

/**
 * Why a finding no longer holds. `outOfScope`: its account is no longer linked or its group
 * no longer managed, or the service's record no longer knows what the finding compares with
 * (the state or membership it set), which the service's own records tell; else a read of the
 * target showed it, and a second read must confirm that before the finding is closed.
 */
export interface Closure {
  because: string;
  outOfScope: boolean;
  /**
   * The linked account's ID as the service's record spells it, where the finding spells it
   * otherwise: second reads ask the target about the member as the service wrote it.
   */
  accountId?: string;
}

/**
 * Compares the target as read with the service's records (issue 18): the five kinds of
 * drift, only where the view knows (a group whose members were read, accounts read whole).
 * Linear in the members read and the assignments held.
 *
 * @example
 * evaluateDrift(view, { records, groups, memberKeys: (r) => [r.targetId] }).candidates;
 * // [{ type: 'memberAddedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g2', groupName: 'Sales' }]
 */
export function evaluateDrift(view: TargetView, scope: DriftScope): DriftEvaluation {
  const groups = new Map(scope.groups.map((group) => [group.id, group]));
  const linked = scope.records.filter((record) => record.targetId !== '');
  const keysOf = new Map(linked.map((record) => [record, scope.memberKeys(record)]));
  // Under every form a member list may name it: access held in either form is the account's.
  const records = byEveryKey(linked, (record) => keysOf.get(record) ?? []);
  const accountKey = (accountId: string) => scope.accountKey?.(accountId) ?? accountId;
  const byAccountId = new Map(linked.map((record) => [accountKey(record.accountId), record]));
  const recordOf = (subject: DriftSubject) =>
    subject.accountId === undefined ? undefined : byAccountId.get(accountKey(subject.accountId));
  const accountsByKey = byEveryKey([...view.accounts.values()], (account) => [
    account.key,
    ...(account.name === undefined
      ? []
      : scope.memberKeys({ accountId: account.name, targetId: account.id })),
  ]);
  /** Whether a read group lists the linked account, in any form. */
  const lists = (members: Map<string, ViewMember>, record: AccountRecord) =>
    (keysOf.get(record) ?? []).some((key) => members.has(key));
  const skipped = (name: string | undefined) =>
    name !== undefined && scope.skip?.has(name.toLowerCase()) === true;
  /** Whether the view tells about this linked account's memberships. */
  const accountRead = (record: AccountRecord) =>
    !skipped(record.accountId) && (!view.accountsComplete || view.accounts.has(record.targetId));

  const candidates: DriftSubject[] = [];
  for (const record of linked) {
    if (skipped(record.accountId)) continue;
    const account = view.accounts.get(record.targetId);
    if (account === undefined) {
      if (view.accountsComplete) {
        // Its memberships went with it: the deletion is the one finding.
        candidates.push({
          type: 'accountDeletedOutside',
          accountId: record.accountId,
          targetId: record.targetId,
        });
        continue;
      }
    } else if (
      record.enabled !== undefined &&
      account.enabled !== undefined &&
      account.enabled !== record.enabled
    ) {
      candidates.push({
        type: 'accountStateChangedOutside',
        accountId: record.accountId,
        targetId: record.targetId,
        expectedEnabled: record.enabled,
        observedEnabled: account.enabled,
      });
    }
    for (const groupId of record.assignedGroups) {
      const members = view.members.get(groupId);
      const group = groups.get(groupId);
      if (members === undefined || group === undefined || lists(members, record)) continue;
      candidates.push(membership('memberRemovedOutside', record, group));
    }
  }
  for (const [groupId, members] of view.members) {
    const group = groups.get(groupId);
    if (group === undefined) continue;
    // An account held under both forms is one membership.
    const judged = new Set<AccountRecord>();
    for (const [key, member] of members) {
      const record = records.get(key);
      if (record !== undefined) {
        if (judged.has(record)) continue;
        judged.add(record);
        // A group whose membership the record does not know is no evidence either way.
        const known = !(record.unconfirmedGroups ?? []).includes(groupId);
        if (accountRead(record) && known && !record.assignedGroups.includes(groupId)) {
          candidates.push(membership('memberAddedOutside', record, group));
        }
        continue;
      }
      // Nested groups and devices are members too, but not accounts anyone could own.
      if (member.kind !== 'user') continue;
      const account = accountsByKey.get(key);
      const name = account?.name ?? member.name;
      // A request may be creating this account right now: its record is not written yet.
      if (skipped(name)) continue;
      candidates.push({
        type: 'unlinkedMember',
        targetId: account?.id ?? key,
        groupId,
        groupName: group.displayName,
        ...(name === undefined ? {} : { memberName: name }),
      });
    }
  }

  /** A read group's members by target id (the key where no account was read), built once per group. */
  const idsByGroup = new Map<string, Map<string, string>>();
  const memberIds = (groupId: string): Map<string, string> | undefined => {
    const members = view.members.get(groupId);
    if (members === undefined) return undefined;
    let ids = idsByGroup.get(groupId);
    if (ids === undefined) {
      ids = new Map([...members.keys()].map((key) => [accountsByKey.get(key)?.id ?? key, key]));
      idsByGroup.set(groupId, ids);
    }
    return ids;
  };
  const closure = (subject: DriftSubject): Closure | undefined => {
    const group = subject.groupId === undefined ? undefined : groups.get(subject.groupId);
    if (subject.groupId !== undefined && group === undefined) {
      return outOfScope(
        'the group is no longer managed (not in the role catalogue, gone, or not writable)',
      );
    }
    const because = readClosure(subject);
    return because === undefined ? undefined : { because, outOfScope: false };
  };
  const readClosure = (subject: DriftSubject): string | undefined => {
    if (subject.type === 'unlinkedMember') {
      const members = memberIds(subject.groupId ?? '');
      if (members === undefined || skipped(subject.memberName)) return undefined;
      const key = members.get(subject.targetId);
      if (key === undefined) return 'the member is no longer in the group';
      return records.has(key) ? 'the member is now an account the service links' : undefined;
    }
    const record = recordOf(subject);
    if (record === undefined || record.targetId !== subject.targetId) return undefined;
    if (skipped(record.accountId)) return undefined;
    const account = view.accounts.get(record.targetId);
    switch (subject.type) {
      case 'accountDeletedOutside':
        if (account !== undefined) return 'the account is on the target again';
        return undefined;
      case 'accountStateChangedOutside':
        if (account?.enabled === undefined || record.enabled === undefined) return undefined;
        return account.enabled === record.enabled
          ? 'the account is in the state the service set last'
          : undefined;
      default: {
        if (!accountRead(record) || account === undefined) {
          return view.accountsComplete && account === undefined
            ? 'the account is gone from the target (see accountDeletedOutside)'
            : undefined;
        }
        const members = view.members.get(subject.groupId ?? '');
        if (members === undefined) return undefined;
        const assigned = record.assignedGroups.includes(subject.groupId ?? '');
        const member = lists(members, record);
        if (subject.type === 'memberAddedOutside') {
          if (!member) return 'the account is no longer a member of the group';
          return assigned ? 'the service assigned the membership since' : undefined;
        }
        if (member) return 'the account is a member of the group again';
        if (assigned) return undefined;
        // Not assigned because a grant or revoke of it was never confirmed: no revoke is known.
        return (record.unconfirmedGroups ?? []).includes(subject.groupId ?? '')
          ? UNKNOWN_MEMBERSHIP
          : 'the service revoked the membership since';
      }
    }
  };
  const scopedClosure = (subject: DriftSubject): Closure | undefined => {
    if (subject.type === 'unlinkedMember') return closure(subject);
    const record = recordOf(subject);
    if (record === undefined || record.targetId !== subject.targetId) {
      return outOfScope('the service no longer links this account (deleted, or linked anew)');
    }
    // What the service set is no longer known: the finding's comparison has nothing to rest on.
    const unknownState = stateUnknown(subject, record);
    if (unknownState !== undefined) return outOfScope(unknownState);
    const found = closure(subject);
    return found === undefined || record.accountId === subject.accountId
      ? found
      : { ...found, accountId: record.accountId };
  };
  return { candidates, closure: scopedClosure };
}

/** Why a membership finding closes when the service's record no longer knows the membership. */
const UNKNOWN_MEMBERSHIP =
  "the service's record no longer knows whether the account is a member: a grant or revoke " +
  'of it, whose answer was lost, was neither confirmed nor refuted';

/**
 * Why a state finding no longer holds when the service's record does not know the state it set
 * (a lock or unlock whose answer was lost, neither confirmed nor refuted since); else undefined.
 */
function stateUnknown(subject: DriftSubject, record: AccountRecord): string | undefined {
  if (subject.type !== 'accountStateChangedOutside' || record.enabled !== undefined) {
    return undefined;
  }
  if (record.enabledUnconfirmed === undefined) {
    return "the service's record no longer holds a state the service set";
  }
  const write = record.enabledUnconfirmed ? 'unlock' : 'lock';
  return (
    `the service's record no longer knows the state it set: the ${write} of ` +
    `${record.enabledAt ?? 'an earlier request'}, whose answer was lost, was neither confirmed nor refuted`
  );
}

/** Each item under each of its keys; a key two items share stays the first one's. */
function byEveryKey<T>(
  items: readonly T[],
  keysOf: (item: T) => readonly string[],
): Map<string, T> {
  const map = new Map<string, T>();
  // The form additions write first, for every item, then the other forms.
  const forms = items.map((item) => keysOf(item));
  const most = Math.max(0, ...forms.map((keys) => keys.length));
  for (let form = 0; form < most; form++) {
    for (const [index, keys] of forms.entries()) {
      const key = keys[form];
      if (key !== undefined && key !== '' && !map.has(key)) map.set(key, items[index]!);
    }
  }
  return map;
}

function outOfScope(because: string): Closure {
  return { because, outOfScope: true };
}

/**
 * What the first read showed of a subject, for its evidence: the read, and what it listed or
 * did not.
 *
 * @example
 * firstReadOf({ type: 'memberAddedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g1', groupName: 'Sales' }, view);
 * // 'GET /groups/delta?$select=members: the members of Sales (g1) include account "ada" (u1)'
 */
export function firstReadOf(subject: DriftSubject, view: TargetView): string {
  const group = `${subject.groupName ?? subject.groupId ?? ''} (${subject.groupId ?? ''})`;
  const account = `account "${subject.accountId ?? ''}" (${subject.targetId})`;
  switch (subject.type) {
    case 'memberAddedOutside':
      return `${view.sources.members}: the members of ${group} include ${account}, which the service did not assign`;
    case 'memberRemovedOutside':
      return `${view.sources.members}: the members of ${group} do not include ${account}, which the service assigned`;
    case 'accountDeletedOutside':
      return `${view.sources.accounts}: ${account} is not among the accounts`;
    case 'accountStateChangedOutside':
      return `${view.sources.accounts}: ${account} is ${subject.observedEnabled === true ? 'enabled' : 'disabled'}; the service last ${subject.expectedEnabled === true ? 'enabled (unlocked)' : 'disabled (locked)'} it`;
    case 'unlinkedMember':
      return `${view.sources.members}: the members of ${group} include ${subject.memberName ?? 'member'} (${subject.targetId}), an account the service does not link`;
  }
}

function membership(
  type: 'memberAddedOutside' | 'memberRemovedOutside',
  record: AccountRecord,
  group: GroupRef,
): DriftSubject {
  return {
    type,
    accountId: record.accountId,
    targetId: record.targetId,
    groupId: group.id,
    groupName: group.displayName,
  };
}
