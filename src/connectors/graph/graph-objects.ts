import type { GroupLink } from '../../domain/nested-groups';

/** A directory object as Graph returns it: JSON properties, `@odata.type` on mixed lists. */
export type GraphObject = Record<string, unknown>;

/** graph-behaviour.md: memberOf and members lists tell groups apart by this type. */
export const GROUP_ODATA_TYPE = '#microsoft.graph.group';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string property, or undefined when absent or not a string. */
export function readString(object: GraphObject, property: string): string | undefined {
  const value = object[property];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Spec 7 and graph-behaviour.md: memberOf returns groups, directory roles and
 * administrative units; connector B manages groups only, told apart by `@odata.type`.
 */
export function isGroupObject(object: GraphObject): boolean {
  return object['@odata.type'] === GROUP_ODATA_TYPE;
}

/**
 * A group as a named link. Objects the app may not read come back with only `@odata.type`
 * and `id` (graph-behaviour.md): their id stands in for the name.
 */
export function toGroupLink(object: GraphObject): GroupLink {
  const id = readString(object, 'id') ?? '';
  return { id, displayName: readString(object, 'displayName') ?? id };
}
