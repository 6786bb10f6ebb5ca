import { randomUUID } from 'node:crypto';
import { checkSelect, shapeDirectoryObject } from '../directory-object-shapes.js';
import type { DirectoryRecord } from '../directory-store.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError, resourceNotFound } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import { parseListQuery, parseSelect, pageOf } from '../list-query.js';
import { compileODataFilter } from '../odata-filter.js';
import { GRAPH_PERMISSIONS, requireAnyRole, requireMayChangeUser } from '../permissions.js';
import { validateNewUser, validateUserChanges } from '../user-validation.js';
import { collectionReply, jsonReply, noContent } from './graph-replies.js';
import { mixedCollectionReply } from './mixed-collection.js';
import { noteStaleRead, requireVisibleToWrites } from './write-visibility.js';

const FILTERABLE_USER_PROPERTIES = [
  'id',
  'userPrincipalName',
  'displayName',
  'mail',
  'mailNickname',
  'accountEnabled',
  'givenName',
  'surname',
  'employeeId',
];

/**
 * `$select=signInActivity` needs AuditLog.Read.All and a P1/P2 licence, and lowers the
 * page size limit to 500 (graph-behaviour.md: signInActivity).
 */
function checkSignInActivity(
  context: GraphContext,
  call: GraphCall,
  select: readonly string[] | undefined,
): boolean {
  if (select?.includes('signInActivity') !== true) return false;
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readSignInActivity);
  if (!context.settings.signInActivityLicensed) {
    throw new GraphRequestError(
      403,
      'Authentication_RequestFromNonPremiumTenantOrB2CTenant',
      "Neither tenant is B2C or tenant doesn't have premium license",
    );
  }
  return true;
}

function conflictOnUserPrincipalName(): GraphRequestError {
  return new GraphRequestError(
    400,
    'Request_BadRequest',
    'Another object with the same value for property userPrincipalName already exists.',
    { extra: { details: [{ code: 'ObjectConflict', target: 'userPrincipalName' }] } },
  );
}

/** `GET /users`: paging, `$select`, `$filter`. */
export function listUsers(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readUsers);
  const select = parseSelect(call.query);
  checkSelect('user', select);
  const withSignIn = select?.includes('signInActivity') === true;
  const query = parseListQuery(call.query, withSignIn ? 500 : 999);
  checkSignInActivity(context, call, select);
  const matches =
    query.filter === undefined
      ? undefined
      : compileODataFilter(query.filter, FILTERABLE_USER_PROPERTIES, 'User');
  const view = context.readView();
  const users = context.store.visibleUsers(view);
  const found = matches === undefined ? users : users.filter(matches);
  noteStaleRead(context, context.store.hasStaleUser(view, matches ?? (() => true)));
  const page = pageOf(found, query, {
    graphEndpoint: context.graphEndpoint(),
    path: call.rawPath,
    params: call.query,
  });
  const value = page.value.map((user) =>
    shapeDirectoryObject('user', user, query.select, { withType: false, readable: true }),
  );
  return collectionReply(
    context.graphEndpoint(),
    select === undefined ? 'users' : `users(${select.join(',')})`,
    {
      value,
      nextLink: page.nextLink,
    },
  );
}

/** `GET /users/{id | userPrincipalName}`, as replicated to readers. */
export function getUser(context: GraphContext, call: GraphCall, idOrUpn: string): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readUsers);
  const select = parseSelect(call.query);
  checkSelect('user', select);
  checkSignInActivity(context, call, select);
  const view = context.readView();
  const id = context.store.resolveVisibleUserId(idOrUpn, view);
  let user: DirectoryRecord | undefined =
    id === undefined ? undefined : context.store.visibleUser(id, view);
  const committedId = context.store.resolveUserId(idOrUpn);
  noteStaleRead(
    context,
    context.store.userIsStale(id, view) || context.store.userIsStale(committedId, view),
  );
  if (id === undefined || user === undefined) throw resourceNotFound(idOrUpn);
  if (context.staleLockReads.has(id) && context.accountEnabledBeforePatch.has(id)) {
    context.staleLockReads.delete(id);
    user = { ...user, accountEnabled: context.accountEnabledBeforePatch.get(id) };
  }
  return jsonReply(200, {
    '@odata.context': `${context.graphEndpoint()}/v1.0/$metadata#users/$entity`,
    ...shapeDirectoryObject('user', user, select, { withType: false, readable: true }),
  });
}

/** `POST /users` → 201 with the user (graph-behaviour.md: Users). */
export function createUser(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.writeUsers);
  const fields = validateNewUser(call.body, context.settings.verifiedDomains);
  if (context.store.userIdByUpn(String(fields['userPrincipalName'])) !== undefined) {
    throw conflictOnUserPrincipalName();
  }
  const now = context.now();
  const user: DirectoryRecord = {
    ...fields,
    id: randomUUID(),
    createdDateTime: new Date(now).toISOString(),
  };
  context.store.createUser(user, now, now + context.newObjectWriteLag());
  return jsonReply(201, {
    '@odata.context': `${context.graphEndpoint()}/v1.0/$metadata#users/$entity`,
    ...shapeDirectoryObject('user', user, undefined, { withType: false, readable: true }),
  });
}

/** `PATCH /users/{id}` → 204; lock and unlock are PATCHes of `accountEnabled`. */
export function updateUser(context: GraphContext, call: GraphCall, idOrUpn: string): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.writeUsers);
  const id = context.store.resolveUserId(idOrUpn);
  const current = id === undefined ? undefined : context.store.committedUser(id);
  if (id === undefined || current === undefined) throw resourceNotFound(idOrUpn);
  requireVisibleToWrites(context, id, idOrUpn);
  requireMayChangeUser(holdsDirectoryRole(context, id), call.wids);
  const changes = validateUserChanges(call.body, context.settings.verifiedDomains);
  const upn = changes['userPrincipalName'];
  if (typeof upn === 'string') {
    const holder = context.store.userIdByUpn(upn);
    if (holder !== undefined && holder !== id) throw conflictOnUserPrincipalName();
  }
  context.accountEnabledBeforePatch.set(id, current['accountEnabled']);
  context.store.updateUser(id, changes, context.now());
  return noContent();
}

/** `DELETE /users/{id}` → 204; the user's memberships go with it. */
export function deleteUser(context: GraphContext, call: GraphCall, idOrUpn: string): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.writeUsers);
  const id = context.store.resolveUserId(idOrUpn);
  if (id === undefined) throw resourceNotFound(idOrUpn);
  requireVisibleToWrites(context, id, idOrUpn);
  requireMayChangeUser(holdsDirectoryRole(context, id), call.wids);
  context.store.deleteUser(id, context.now());
  return noContent();
}

/** Whether the user is a direct member of a directory role (the committed state). */
function holdsDirectoryRole(context: GraphContext, userId: string): boolean {
  return context.store.memberships
    .committedContainers(userId)
    .some((id) => context.store.kindOf(id) === 'directoryRole');
}

/** `GET /users/{id}/memberOf`: groups, directory roles and administrative units. */
export function listUserMemberOf(
  context: GraphContext,
  call: GraphCall,
  idOrUpn: string,
): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readUserMemberOf);
  const view = context.readView();
  const id = context.store.resolveVisibleUserId(idOrUpn, view);
  const committedId = context.store.resolveUserId(idOrUpn);
  const stale = (userId: string | undefined) =>
    userId !== undefined &&
    (context.store.userExistenceIsStale(userId, view) ||
      context.store.memberships.hasStaleContainerEdge(userId, view));
  noteStaleRead(context, stale(id) || (committedId !== id && stale(committedId)));
  if (id === undefined || context.store.visibleUser(id, view) === undefined)
    throw resourceNotFound(idOrUpn);
  return mixedCollectionReply(
    context,
    call,
    context.store.memberships.visibleContainers(id, view),
    view,
  );
}
