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
