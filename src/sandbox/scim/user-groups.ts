import type { Projection } from './attribute-projection.js';
import type { ScimResource, ScimStore } from './scim-store.js';
import type { ScimQuirks } from './types.js';

/**
 * Whether an answer's projection lets the user's `groups` through: all attributes, an
 * `attributes` list that names it, or an `excludedAttributes` list that does not.
 */
function requested(projection: Projection | undefined): boolean {
  if (projection === undefined) return true;
  const named = projection.topLevel.has('groups');
  return projection.mode === 'include' ? named : !named;
}

/**
 * Quirk `userGroups: 'served'`: a copy of a user resource with its direct groups (RFC 7643
 * §4.1.2, read-only, `value` and `display`), computed from what the groups hold as the
 * server sees it, whole: a server that cuts its groups' member lists still lists a user's
 * groups. RFC 7643 omits an unassigned attribute: a user of no group has no `groups`.
 * `cut` shortens the list silently, as real servers do (nothing in the answer says so): to
 * its first groups (`maxUserGroupsShown`), and without groups of a type it does not list
 * (`userGroupsLeaveOut`).
 *
 * @example
 * withUserGroups(user, store, undefined); // { ...user, groups: [{ value: 'g1', display: 'Sales' }] }
 */
export function withUserGroups(
  resource: ScimResource,
  store: ScimStore,
  projection: Projection | undefined,
  cut: Pick<ScimQuirks, 'maxUserGroupsShown' | 'userGroupsLeaveOut'> = {},
): ScimResource {
  if (!requested(projection) || typeof resource.id !== 'string') return resource;
  const stored = store.getUser(resource.id);
  if (stored === undefined) return resource;
  const account = { userId: resource.id, accountId: String(stored.userName) };
  const groups = store
    .listGroups()
    .filter((group) => typeof group.id === 'string' && store.holdsAccount(group.id, account))
    .filter((group) => !(cut.userGroupsLeaveOut ?? []).includes(String(group.displayName)))
    .map((group) => ({ value: group.id, display: group.displayName, type: 'direct' }))
    .slice(0, cut.maxUserGroupsShown ?? Infinity);
  return groups.length === 0 ? resource : { ...resource, groups };
}
