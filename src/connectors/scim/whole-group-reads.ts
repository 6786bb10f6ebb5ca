import type { TargetAccount } from '../../domain/account';
import { describeGroup } from '../../domain/group';
import type { MembershipRead } from '../connector';
import { heldAs } from './member-value-forms';
import type { UserGroupsCheck } from './user-groups-check';

/** A group as `GET /Groups/{id}` showed it: its name, and its member values if it listed any. */
export interface ListedGroup {
  name: string;
  /** Undefined: the answer held no `members` (an empty group, or a server that omits them). */
  members: string[] | undefined;
}

/** What a whole-group read needs of the connector. */
export interface WholeGroupSource {
  connector: string;
  /** `GET /Groups/{id}`. */
  readGroup(groupId: string): Promise<ListedGroup>;
  /** Every form a group may hold the account in. */
  memberValues(account: TargetAccount): string[];
  userGroups: UserGroupsCheck;
}

/**
 * Memberships from the whole groups (spec: GET /Groups/{id}), on a server whose members
 * filter cannot be used for this read (`why`). A member list that shows the account is the
 * server's word. Its silence is not: servers cut big groups' lists short, and omit `members`
 * for an empty group as for every group (scim-interop.md). Where "not a member" decides
 * something (`confirmAbsent`), or the group returned no list, the user's own `groups`
 * attribute is asked once for the whole read (RFC 7643 §4.1.2): a group it lists is a
 * membership, and its silence is an absence only where the list is known complete
 * (`UserGroupsAnswer.cutShort` undefined; a list that leaves out a group whose member list
 * shows the account is never believed again). Until it is believed, it is asked at every
 * read with a decisive group, so that a list that shows the account lets it show the same
 * (`UserGroupsCheck.absenceBelieved`); after, at every read where a list shows the account
 * in a decisive group, so that a list that leaves it out is caught. Where nothing vouches,
 * the group is `unproven`: whether the account is a member is not known, and the notices say
 * why (DESIGN invariant 11).
 */
export async function readWholeGroups(
  source: WholeGroupSource,
  account: TargetAccount,
  groupIds: readonly string[],
  confirmAbsent: readonly string[],
  why: string,
): Promise<MembershipRead> {
  const confirm = new Set(confirmAbsent);
  const values = source.memberValues(account);
  const listed = await Promise.all(groupIds.map((id) => source.readGroup(id)));
  const names = Object.fromEntries(groupIds.map((id, i) => [id, listed[i]!.name]));
  const shown = new Set(
    groupIds.filter((_, i) => heldAs(listed[i]!.members, values) !== undefined),
  );
  const unvouched = groupIds.filter(
    (id, i) => !shown.has(id) && (confirm.has(id) || listed[i]!.members === undefined),
  );
  const notices: string[] = [];
  const unproven: string[] = [];
  // Asked also where a list shows the account in a decisive group: until the attribute has
  // listed a group, that is what lets its silence be believed later (its positive control);
  // after, a list that leaves that group out shows it cut short (a server that lists only
  // some kinds of groups, which no count reveals), before its silence decides a verdict.
  const control =
    confirm.size > 0 &&
    source.userGroups.mayBeAsked &&
    (!source.userGroups.absenceBelieved || [...shown].some((id) => confirm.has(id)));
  if (unvouched.length > 0 || control) {
    const answer = await source.userGroups.read(account);
    const silence = await source.userGroups.silenceOf(answer, shown, names, account.accountId);
    for (const id of unvouched) {
      if ('groupIds' in answer && answer.groupIds.has(id)) {
        shown.add(id);
        continue;
      }
      if (silence === undefined) continue;
      unproven.push(id);
      const described = describeGroup({ id, displayName: names[id] ?? id });
      const list =
        listed[groupIds.indexOf(id)]!.members === undefined
          ? 'returns no member list (an empty group and a server that omits members look alike)'
          : 'shows the account in no member list the server returned, which it may cut short';
      notices.push(
        `group ${described}: could not tell whether the account is a member: the group ${list} ` +
          `(${why}), and ${silence}`,
      );
    }
  }
  return {
    groupIds: groupIds.filter((id) => shown.has(id)),
    names,
    notices,
    ...(unproven.length === 0 ? {} : { unproven }),
  };
}
