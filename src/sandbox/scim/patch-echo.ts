import type { readPatchOperations } from './group-patch.js';
import type { ScimMember, ScimResource } from './scim-store.js';

type Operation = ReturnType<typeof readPatchOperations>[number];

const SERVER_OWNED = new Set(['schemas', 'id', 'meta']);

/** The key of `name` in `target`, matched case-insensitively (the name itself when absent). */
function keyOf(target: Record<string, unknown>, name: string): string {
  return Object.keys(target).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
}

function memberValues(value: unknown): string[] {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => {
    const member = (item as { value?: unknown } | null)?.value;
    return typeof member === 'string' ? [member] : [];
  });
}

function withMembers(resource: ScimResource, members: ScimMember[]): void {
  resource[keyOf(resource, 'members')] = members;
}

function currentMembers(resource: ScimResource): ScimMember[] {
  const members = resource[keyOf(resource, 'members')];
  return Array.isArray(members) ? (members as ScimMember[]) : [];
}

/** Sets `a.b` (a dotted path below the resource, schema URN left out) to `value`. */
function setPath(resource: ScimResource, path: string, value: unknown): void {
  const segments = path.replace(/^urn:[^ ]*:/i, '').split('.');
  let target: Record<string, unknown> = resource;
  for (const segment of segments.slice(0, -1)) {
    const key = keyOf(target, segment);
    const next = target[key];
    target[key] = next !== null && typeof next === 'object' ? { ...next } : {};
    target = target[key] as Record<string, unknown>;
  }
  target[keyOf(target, segments.at(-1)!)] = value;
}

function echoMembers(resource: ScimResource, op: Operation, path: string): void {
  const filtered = /\[\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*\]/i.exec(path)?.[1];
  const members = currentMembers(resource);
  if (op.op === 'remove') {
    const gone = new Set(filtered === undefined ? memberValues(op.value) : [filtered]);
    withMembers(
      resource,
      members.filter((member) => !gone.has(member.value)),
    );
    return;
  }
  const kept = op.op === 'replace' ? [] : members;
  const added = memberValues(op.value).filter((value) => !kept.some((m) => m.value === value));
  withMembers(resource, [...kept, ...added.map((value) => ({ value }))]);
}

/**
 * The resource as a PatchOp would have left it, for quirk `ignoredPatchEchoesRequest`: a server
 * that answers from the request, not from what it stored. Attribute paths (dotted, with or
 * without their schema) and `members` add, remove (by `[value eq "x"]` or a value list) and
 * replace; enough to echo what the service sends, not a PATCH implementation.
 *
 * @example
 * echoPatch(user, [{ op: 'replace', path: 'active', value: false }]).active; // false
 */
export function echoPatch(resource: ScimResource, operations: readonly Operation[]): ScimResource {
  const result = structuredClone(resource);
  for (const op of operations) {
    if (op.path === undefined) {
      const value = (op.value ?? {}) as Record<string, unknown>;
      for (const [name, attribute] of Object.entries(value)) {
        if (SERVER_OWNED.has(name.toLowerCase())) continue;
        if (name.toLowerCase() === 'members') echoMembers(result, op, 'members');
        else result[keyOf(result, name)] = attribute;
      }
      continue;
    }
    if (/^members\b/i.test(op.path)) {
      echoMembers(result, op, op.path);
      continue;
    }
    if (op.op === 'remove') delete result[keyOf(result, op.path)];
    else setPath(result, op.path, op.value);
  }
  return result;
}
