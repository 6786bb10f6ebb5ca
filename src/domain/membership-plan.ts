import type { GroupRef } from './group';

export type MembershipAction = 'grant' | 'revoke' | 'setMemberships';

/**
 * What a membership step writes and then verifies. Every group the request names is
 * written: a read may plan and report, but never cancel a write (DESIGN invariant 9).
 */
export interface MembershipWritePlan {
  /** Granted groups (setMemberships: the wanted ones): always written. */
  add: string[];
  /** Revoked groups: always written. */
  remove: string[];
  /**
   * setMemberships: writable managed groups the account must leave. Removed when a read or
   * the service's record shows the account in one, and again when a re-read finds one.
   */
  removeIfPresent: string[];
  /** The groups the step verifies, and whether the account must be a direct member of each. */
  expected: Record<string, boolean>;
  /** Managed groups whose members the service may not write: left alone (setMemberships). */
  leftAlone: GroupRef[];
  /** Named groups whose members the service may not write: the step fails before any write. */
  refused: GroupRef[];
  /**
   * setMemberships: managed groups whose role is marked gone and that the request does not
   * name: taken out of only where a read shows the account in one (see planGoneRoles).
   */
  gone: GroupRef[];
  /** setMemberships: named groups whose role is marked gone (written all the same, with a notice). */
  goneNamed: GroupRef[];
}

/**
 * Plans a membership step (spec: Membership write procedure, steps 2 and 3). Only the
 * named groups are touched by grant and revoke; setMemberships reconciles the connector's
 * writable managed groups only (spec 6: groups the request does not name stay untouched).
 *
 * @example
 * planMembershipWrites('grant', [{ id: 'g1', displayName: 'Sales' }], []);
 * // { add: ['g1'], remove: [], removeIfPresent: [], expected: { g1: true }, leftAlone: [], refused: [], gone: [], goneNamed: [] }
 */
export function planMembershipWrites(
  action: MembershipAction,
  named: readonly GroupRef[],
  managed: readonly GroupRef[],
): MembershipWritePlan {
  const ids = unique(named.map((group) => group.id));
  const refused = named.filter((group) => group.writable === false);
  const expected: Record<string, boolean> = {};
  if (action !== 'setMemberships') {
    for (const id of ids) expected[id] = action === 'grant';
    return {
      add: action === 'grant' ? ids : [],
      remove: action === 'revoke' ? ids : [],
      removeIfPresent: [],
      expected,
      leftAlone: [],
      refused,
      gone: [],
      goneNamed: [],
    };
  }
  const wanted = new Set(ids);
  const present = managed.filter((group) => group.goneSince === undefined);
  const gone = managed.filter((group) => group.goneSince !== undefined);
  const leftAlone = present.filter((group) => group.writable === false && !wanted.has(group.id));
  const removeIfPresent = unique(
    present
      .filter((group) => group.writable !== false && !wanted.has(group.id))
      .map((group) => group.id),
  );
  for (const id of ids) expected[id] = true;
  for (const id of removeIfPresent) expected[id] = false;
  return {
    add: ids,
    remove: [],
    removeIfPresent,
    expected,
    leftAlone,
    refused,
    gone: gone.filter((group) => !wanted.has(group.id)),
    goneNamed: gone.filter((group) => wanted.has(group.id)),
  };
}

/**
 * The removals a setMemberships writes: the managed groups to leave that a read showed the
 * account in, that the service itself granted (a lagging read may not show them yet), or
 * whose "not a member" the read could not vouch for (`unproven`: a member list the server
 * may cut short). A read never cancels a write (DESIGN invariant 9): only a read the target
 * vouches for spares a removal.
 */
export function removalsToWrite(
  plan: MembershipWritePlan,
  seen: ReadonlySet<string>,
  assigned: readonly string[],
  unproven: ReadonlySet<string> = new Set(),
): string[] {
  const held = new Set(assigned);
  return [
    ...plan.remove,
    ...plan.removeIfPresent.filter((id) => seen.has(id) || held.has(id) || unproven.has(id)),
  ];
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
