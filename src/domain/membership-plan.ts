import { ProvisioningError } from './errors';

export interface MembershipRequest {
  /** Group IDs the account must be a direct member of afterwards. */
  grant: readonly string[];
  /** Group IDs the account must not be a direct member of afterwards. */
  revoke: readonly string[];
}

export interface MembershipPlan {
  /** Effective additions: granted groups the account is not yet in. */
  add: string[];
  /** Effective removals: revoked groups the account is in now. */
  remove: string[];
  /** Requested changes that are already true: they reach no target and no journal. */
  unchanged: string[];
  /**
   * The direct memberships expected after the writes: the current ones, less the
   * removals, plus the additions. Groups the request does not name keep their state
   * (spec: "What the service does" 6).
   */
  expected: string[];
}

/**
 * Plans a membership change from the account's current direct groups and a request:
 * only real changes are planned (spec 5), and a group named both to grant and to revoke
 * is refused.
 *
 * @example
 * planMembershipChange(['a', 'b'], { grant: ['b', 'c'], revoke: ['a', 'z'] });
 * // { add: ['c'], remove: ['a'], unchanged: ['b', 'z'], expected: ['b', 'c'] }
 */
export function planMembershipChange(
  current: Iterable<string>,
  request: MembershipRequest,
): MembershipPlan {
  const grant = unique(request.grant);
  const revoke = unique(request.revoke);
  const both = grant.filter((id) => revoke.includes(id));
  if (both.length > 0) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `group ${both.map((id) => `"${id}"`).join(', ')} is both granted and revoked in one request`,
      { object: both.join(', ') },
    );
  }
  const now = new Set(current);
  const add = grant.filter((id) => !now.has(id));
  const remove = revoke.filter((id) => now.has(id));
  const unchanged = [...grant.filter((id) => now.has(id)), ...revoke.filter((id) => !now.has(id))];
  const expected = new Set(now);
  for (const id of remove) expected.delete(id);
  for (const id of add) expected.add(id);
  return { add, remove, unchanged, expected: [...expected] };
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
