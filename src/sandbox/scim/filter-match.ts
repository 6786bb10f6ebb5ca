import type { CompareOp, FilterNode, FilterValue } from './scim-filter.js';

export interface MatchOptions {
  /** Compare every string exactly (quirk `caseSensitiveFilters`). */
  caseSensitive: boolean;
  /** Lower-cased URN of the resource's core schema, which may prefix attribute paths. */
  coreSchema: string;
  /**
   * A group's member values as an index: `members eq "x"` is then one lookup, not a walk
   * through every member (groups of 100,000).
   */
  memberValues?: (resource: Record<string, unknown>) => ((value: string) => boolean) | undefined;
  /**
   * Quirk `membersFilter`: every comparison on `members` has this result, whatever the
   * members (`ignored`: true, `blind`: false).
   */
  membersClause?: boolean;
}

/*
 * RFC 7643 caseExact=true attributes: identifiers keep their case; everything else (userName,
 * displayName, emails, ...) compares case-insensitively unless the quirk says otherwise.
 * Member values are identifiers chosen by the client (account IDs), so they compare exactly.
 */
const CASE_EXACT = new Set([
  'id',
  'externalid',
  'members',
  'members.value',
  'members.$ref',
  'meta.version',
]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function findKey(object: Record<string, unknown>, lowerName: string): string | undefined {
  if (Object.hasOwn(object, lowerName)) return lowerName;
  for (const key of Object.keys(object)) if (key.toLowerCase() === lowerName) return key;
  return undefined;
}

/** Every value at `path`, multi-valued attributes flattened; a core-schema URN prefix is skipped. */
function walk(resource: Record<string, unknown>, path: string[], options: MatchOptions): unknown[] {
  const segments = path[0] === options.coreSchema ? path.slice(1) : path;
  let current: unknown[] = [resource];
  for (const segment of segments) {
    const nextValues: unknown[] = [];
    for (const value of current) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const key = findKey(value as Record<string, unknown>, segment);
      const found = key === undefined ? undefined : (value as Record<string, unknown>)[key];
      // One by one: spreading 100,000 members into push() overflows the call stack.
      if (Array.isArray(found)) for (const item of found as unknown[]) nextValues.push(item);
      else if (found !== undefined && found !== null) nextValues.push(found);
    }
    current = nextValues;
  }
  return current;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Comparable values at `path`. */
function resolve(
  resource: Record<string, unknown>,
  path: string[],
  options: MatchOptions,
): unknown[] {
  // RFC 7644 §3.4.2.2: a filter on a multi-valued complex attribute without a sub-attribute
  // (Entra's `members eq "u"`) compares its `value` sub-attribute.
  return walk(resource, path, options).map((v) => (isObject(v) && 'value' in v ? v.value : v));
}

function compareStrings(actual: string, expected: string, op: CompareOp): boolean {
  switch (op) {
    case 'eq':
      return actual === expected;
    case 'ne':
      return actual !== expected;
    case 'co':
      return actual.includes(expected);
    case 'sw':
      return actual.startsWith(expected);
    case 'ew':
      return actual.endsWith(expected);
    default:
      break;
  }
  const bothDates = ISO_DATE.test(actual) && ISO_DATE.test(expected);
  const a = bothDates ? Date.parse(actual) : actual;
  const b = bothDates ? Date.parse(expected) : expected;
  if (op === 'gt') return a > b;
  if (op === 'ge') return a >= b;
  if (op === 'lt') return a < b;
  return a <= b;
}

function compareOne(
  actual: unknown,
  op: CompareOp,
  expected: FilterValue,
  exact: boolean,
): boolean {
  if (typeof actual === 'boolean') {
    // Booleans sent as strings ("True") are common (scim-interop.md); read them leniently.
    const wanted = typeof expected === 'string' ? expected.toLowerCase() === 'true' : expected;
    if (op === 'eq') return actual === wanted;
    if (op === 'ne') return actual !== wanted;
    return false;
  }
  if (typeof actual === 'number' && typeof expected === 'number') {
    switch (op) {
      case 'eq':
        return actual === expected;
      case 'ne':
        return actual !== expected;
      case 'gt':
        return actual > expected;
      case 'ge':
        return actual >= expected;
      case 'lt':
        return actual < expected;
      case 'le':
        return actual <= expected;
      default:
        return false;
    }
  }
  if (typeof actual !== 'string' || typeof expected !== 'string') return false;
  return exact
    ? compareStrings(actual, expected, op)
    : compareStrings(actual.toLowerCase(), expected.toLowerCase(), op);
}

function evaluate(
  node: FilterNode,
  resource: Record<string, unknown>,
  options: MatchOptions,
  prefix: string,
): boolean {
  switch (node.kind) {
    case 'and':
      return (
        evaluate(node.left, resource, options, prefix) &&
        evaluate(node.right, resource, options, prefix)
      );
    case 'or':
      return (
        evaluate(node.left, resource, options, prefix) ||
        evaluate(node.right, resource, options, prefix)
      );
    case 'not':
      return !evaluate(node.operand, resource, options, prefix);
    case 'present':
      return resolve(resource, node.path, options).some(
        (v) => v !== '' && v !== null && v !== undefined,
      );
    case 'valuePath': {
      const elements = walk(resource, node.path, options).filter(isObject);
      const inner = `${prefix}${node.path.join('.')}.`;
      return elements.some((element) => evaluate(node.filter, element, options, inner));
    }
    case 'compare': {
      const members = membersComparison(node, resource, options, prefix);
      if (members !== undefined) return members;
      const values = resolve(resource, node.path, options);
      if (node.value === null) return node.op === 'eq' ? values.length === 0 : values.length > 0;
      const name = `${prefix}${node.path.filter((s) => s !== options.coreSchema).join('.')}`;
      const exact = options.caseSensitive || CASE_EXACT.has(name);
      if (node.op === 'ne') return !values.some((v) => compareOne(v, 'eq', node.value, exact));
      return values.some((v) => compareOne(v, node.op, node.value, exact));
    }
  }
}

/**
 * A comparison on a group's `members` (or `members.value`) answered without walking them:
 * by the quirk that fixes its result, or for `eq` by the group's index. Undefined: walk.
 */
function membersComparison(
  node: Extract<FilterNode, { kind: 'compare' }>,
  resource: Record<string, unknown>,
  options: MatchOptions,
  prefix: string,
): boolean | undefined {
  const path = node.path[0] === options.coreSchema ? node.path.slice(1) : node.path;
  const onMembers =
    prefix === '' && path[0] === 'members' && (path.length === 1 || path[1] === 'value');
  if (!onMembers || path.length > 2) return undefined;
  if (options.membersClause !== undefined) return options.membersClause;
  if (node.op !== 'eq' || typeof node.value !== 'string') return undefined;
  return options.memberValues?.(resource)?.(node.value);
}

/**
 * Whether a stored resource matches a parsed filter (RFC 7644 §3.4.2.2), with RFC 7643
 * case rules. `prefix` names the enclosing attribute inside `attr[...]` value paths.
 *
 * @example
 * matchesFilter(parseScimFilter('userName eq "BOB"'), { userName: 'bob' }, { caseSensitive: false, coreSchema });
 */
export function matchesFilter(
  node: FilterNode,
  resource: Record<string, unknown>,
  options: MatchOptions,
  prefix = '',
): boolean {
  return evaluate(node, resource, options, prefix);
}
