import { scimError } from './scim-error.js';
import { splitAttributePath } from './scim-filter.js';

/** The `attributes` / `excludedAttributes` request of RFC 7644 §3.4.2.5, parsed. */
export interface Projection {
  mode: 'include' | 'exclude';
  /** Lower-cased attribute paths, core-schema URN prefix removed. */
  paths: string[][];
  /** Lower-cased top-level names named by the request (to decide on added attributes). */
  topLevel: Set<string>;
}

// Returned "always" (RFC 7643 §2.4, §3.1): never dropped by either parameter.
const ALWAYS = new Set(['id', 'schemas']);

function parseList(text: string, coreSchema: string): string[][] {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s.length === 0))
    throw scimError(400, 'invalidFilter', 'Empty name in attribute list');
  return items.map((item) => {
    const path = splitAttributePath(item);
    return path[0] === coreSchema ? path.slice(1) : path;
  });
}

/**
 * Reads `attributes` / `excludedAttributes` from a query; `attributes` wins when both are present.
 *
 * @example
 * parseProjection(new URLSearchParams('attributes=id'), 'urn:ietf:params:scim:schemas:core:2.0:group');
 */
export function parseProjection(
  query: URLSearchParams,
  coreSchema: string,
): Projection | undefined {
  const include = query.get('attributes');
  const exclude = query.get('excludedAttributes');
  const text = include ?? exclude;
  if (text === null) return undefined;
  const paths = parseList(text, coreSchema);
  return {
    mode: include === null ? 'exclude' : 'include',
    paths,
    topLevel: new Set(paths.map((p) => p[0] ?? '')),
  };
}

function findKey(object: Record<string, unknown>, lowerName: string): string | undefined {
  for (const key of Object.keys(object)) if (key.toLowerCase() === lowerName) return key;
  return undefined;
}

function pickSub(value: unknown, sub: string): unknown {
  const pickOne = (v: unknown): Record<string, unknown> | undefined => {
    if (v === null || typeof v !== 'object') return undefined;
    const key = findKey(v as Record<string, unknown>, sub);
    return key === undefined ? undefined : { [key]: (v as Record<string, unknown>)[key] };
  };
  if (Array.isArray(value)) return value.map(pickOne).filter((v) => v !== undefined);
  return pickOne(value);
}

function mergeInto(target: Record<string, unknown>, key: string, value: unknown): void {
  const existing = target[key];
  if (Array.isArray(existing) && Array.isArray(value)) {
    target[key] = existing.map((e: unknown, i) => ({ ...(e as object), ...(value[i] as object) }));
  } else if (
    existing !== null &&
    typeof existing === 'object' &&
    value !== null &&
    typeof value === 'object'
  ) {
    target[key] = { ...existing, ...value };
  } else {
    target[key] = value;
  }
}

function include(resource: Record<string, unknown>, paths: string[][]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(resource)) if (ALWAYS.has(key)) result[key] = resource[key];
  for (const path of paths) {
    const [top, sub, leaf] = path;
    if (top === undefined) continue;
    const key = findKey(resource, top);
    if (key === undefined) continue;
    const value = resource[key];
    if (sub === undefined) {
      result[key] = value;
    } else if (top.startsWith('urn:') && value !== null && typeof value === 'object') {
      // Extension schema: `urn:...:Ext:attr[.sub]`.
      const extension = value as Record<string, unknown>;
      const inner = findKey(extension, sub);
      if (inner === undefined) continue;
      const picked = leaf === undefined ? extension[inner] : pickSub(extension[inner], leaf);
      mergeInto(result, key, { [inner]: picked });
    } else {
      const picked = pickSub(value, sub);
      if (picked !== undefined) mergeInto(result, key, picked);
    }
  }
  return result;
}

function exclude(resource: Record<string, unknown>, paths: string[][]): Record<string, unknown> {
  // Whole attributes leave before the copy: a group without its 100,000 members is cheap.
  const shallow = { ...resource };
  for (const [top, sub] of paths) {
    if (top === undefined || sub !== undefined || ALWAYS.has(top)) continue;
    const key = findKey(shallow, top);
    if (key !== undefined) delete shallow[key];
  }
  const result = structuredClone(shallow);
  for (const path of paths) {
    const [top, sub] = path;
    if (top === undefined || ALWAYS.has(top)) continue;
    const key = findKey(result, top);
    if (key === undefined) continue;
    if (sub === undefined) {
      delete result[key];
      continue;
    }
    const value = result[key];
    const targets = Array.isArray(value) ? value : [value];
    for (const target of targets) {
      if (target === null || typeof target !== 'object') continue;
      const inner = findKey(target as Record<string, unknown>, sub);
      if (inner !== undefined) delete (target as Record<string, unknown>)[inner];
    }
  }
  return result;
}

/**
 * A copy of `resource` shaped by the projection (RFC 7644 §3.4.2.5); `id` and `schemas` always stay.
 *
 * @example
 * project({ schemas, id: 'g1', displayName: 'Sales', members: [] }, projection); // { schemas, id }
 */
export function project(
  resource: Record<string, unknown>,
  projection: Projection | undefined,
): Record<string, unknown> {
  if (projection === undefined) return structuredClone(resource);
  return projection.mode === 'include'
    ? structuredClone(include(resource, projection.paths))
    : exclude(resource, projection.paths);
}
