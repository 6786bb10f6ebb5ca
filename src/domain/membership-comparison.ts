import type { SerializedError } from './errors';
import { describeGroup } from './group';

export interface MembershipComparison {
  /** Expected but not seen. */
  missing: string[];
  /** Seen but not expected. */
  unexpected: string[];
  matches: boolean;
}

/**
 * Compares the memberships read back after a write with the expected state (spec:
 * Membership write procedure, step 4). With `scope`, only those groups are compared:
 * a connector that reads single groups back cannot judge the others.
 *
 * @example
 * compareMemberships(['a', 'b'], ['b', 'x']); // { missing: ['a'], unexpected: ['x'], matches: false }
 */
export function compareMemberships(
  expected: Iterable<string>,
  actual: Iterable<string>,
  scope?: Iterable<string>,
): MembershipComparison {
  const inScope = scope === undefined ? undefined : new Set(scope);
  const want = new Set([...expected].filter((id) => inScope?.has(id) ?? true));
  const seen = new Set([...actual].filter((id) => inScope?.has(id) ?? true));
  const missing = [...want].filter((id) => !seen.has(id));
  const unexpected = [...seen].filter((id) => !want.has(id));
  return { missing, unexpected, matches: missing.length === 0 && unexpected.length === 0 };
}

/**
 * The failed step of spec step 6 (Membership write procedure): names the missing and the
 * unexpected groups, with their names where known.
 */
export function membershipMismatch(
  connectorName: string,
  accountId: string,
  comparison: MembershipComparison,
  names: Record<string, string>,
  elapsedMs: number,
): SerializedError {
  const describe = (id: string) => describeGroup({ id, displayName: names[id] ?? id });
  const parts = [
    comparison.missing.length > 0 ? `missing: ${comparison.missing.map(describe).join(', ')}` : '',
    comparison.unexpected.length > 0
      ? `unexpected: ${comparison.unexpected.map(describe).join(', ')}`
      : '',
  ].filter((part) => part !== '');
  return {
    code: 'MEMBERSHIP_MISMATCH',
    message:
      `connector "${connectorName}": memberships of account "${accountId}" still differ ` +
      `from the expected state after ${Math.round(elapsedMs / 1000)} s (${parts.join('; ')})`,
    retryable: false,
    object: accountId,
    details: {
      missing: comparison.missing.map((id) => ({ id, name: names[id] ?? id })),
      unexpected: comparison.unexpected.map((id) => ({ id, name: names[id] ?? id })),
    },
  };
}
