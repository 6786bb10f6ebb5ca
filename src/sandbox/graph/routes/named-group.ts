import type { DirectoryRecord } from '../directory-store.js';
import type { GraphContext } from '../graph-context.js';
import { GraphRequestError, resourceNotFound } from '../graph-error.js';
import { insufficientPrivileges } from '../permissions.js';

/** Directory object ids are GUIDs. */
const OBJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The group a call names by id, as Graph resolves it: an id that is not a GUID answers
 * 400 `Request_BadRequest` "Invalid object identifier" (not 404), an unknown one 404, and
 * a group the app may not read (seeded `limited`) 403.
 */
export function namedGroup(context: GraphContext, groupId: string): DirectoryRecord {
  if (!OBJECT_ID.test(groupId)) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      `Invalid object identifier '${groupId}'.`,
    );
  }
  const group = context.store.group(groupId);
  if (group === undefined) throw resourceNotFound(groupId);
  if (context.limitedGroups.has(groupId)) throw insufficientPrivileges();
  return group;
}
