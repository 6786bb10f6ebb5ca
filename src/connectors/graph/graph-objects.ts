import type { GroupLink } from '../../domain/nested-groups';

/** A directory object as Graph returns it: JSON properties, `@odata.type` on mixed lists. */
export type GraphObject = Record<string, unknown>;

/** graph-behaviour.md: memberOf and members lists tell groups apart by this type. */
export const GROUP_ODATA_TYPE = '#microsoft.graph.group';

/** Directory object ids are GUIDs: Graph answers 400 "Invalid object identifier" to anything else. */
export function isObjectId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

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
 * graph-behaviour.md: objects the app may not read come back with only `@odata.type` and
 * `id` (other properties absent or null). Read with `displayName` selected, such an object
 * has no name: every readable directory object has one.
 */
export function isLimitedObject(object: GraphObject): boolean {
  return readString(object, 'displayName') === undefined;
}

/** Why a limited group shows no name: said beside it wherever it is shown. */
export const LIMITED_GROUP_REASON =
  'the app lacks permission to read this group: Microsoft Graph returned only its type and id';

/**
 * A group as a named link. A group the app may not read has its id for a name, and says
 * why (`notReadable`).
 */
export function toGroupLink(object: GraphObject): GroupLink {
  const id = readString(object, 'id') ?? '';
  return isLimitedObject(object)
    ? { id, displayName: id, notReadable: LIMITED_GROUP_REASON }
    : { id, displayName: readString(object, 'displayName') ?? id };
}
