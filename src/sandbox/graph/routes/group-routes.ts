import { checkSelect, shapeDirectoryObject } from '../directory-object-shapes.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import type { GraphReply } from '../graph-error.js';
import { parseListQuery, parseSelect, pageOf } from '../list-query.js';
import { compileODataFilter } from '../odata-filter.js';
import { GRAPH_PERMISSIONS, requireAnyRole } from '../permissions.js';
import { collectionReply, jsonReply } from './graph-replies.js';
import { mixedCollectionReply } from './mixed-collection.js';
import { namedGroup } from './named-group.js';
import { noteStaleRead } from './write-visibility.js';

const FILTERABLE_GROUP_PROPERTIES = [
  'id',
  'displayName',
  'mailNickname',
  'mail',
  'mailEnabled',
  'securityEnabled',
  'onPremisesSyncEnabled',
  'isAssignableToRole',
];

/** `GET /groups`: paging, `$select`, `$filter` (`displayName eq`, `startswith(displayName,'x')`, ...). */
export function listGroups(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  const query = parseListQuery(call.query, 999);
  checkSelect('group', query.select);
  const matches =
    query.filter === undefined
      ? undefined
      : compileODataFilter(query.filter, FILTERABLE_GROUP_PROPERTIES, 'Group');
  const groups = [...context.store.allGroups()].filter((g) => !context.limitedGroups.has(g.id));
  const found = matches === undefined ? groups : groups.filter(matches);
  const page = pageOf(found, query, {
    graphEndpoint: context.graphEndpoint(),
    path: call.rawPath,
    params: call.query,
  });
  const value = page.value.map((group) =>
    shapeDirectoryObject('group', group, query.select, { withType: false, readable: true }),
  );
  const fragment = query.select === undefined ? 'groups' : `groups(${query.select.join(',')})`;
  return collectionReply(context.graphEndpoint(), fragment, { value, nextLink: page.nextLink });
}

/** `GET /groups/{id}`. */
export function getGroup(context: GraphContext, call: GraphCall, groupId: string): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  const select = parseSelect(call.query);
  checkSelect('group', select);
  const group = namedGroup(context, groupId);
  return jsonReply(200, {
    '@odata.context': `${context.graphEndpoint()}/v1.0/$metadata#groups/$entity`,
    ...shapeDirectoryObject('group', group, select, { withType: false, readable: true }),
  });
}

/** `GET /groups/{id}/members`: direct members, users and nested groups, typed. */
export function listGroupMembers(
  context: GraphContext,
  call: GraphCall,
  groupId: string,
): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  namedGroup(context, groupId);
  const view = context.readView();
  const members = context.store.memberships.visibleMembers(groupId, view);
  noteStaleRead(
    context,
    context.store.memberships.hasStaleMemberEdge(groupId, view) ||
      members.some((memberId) => context.store.userIsStale(memberId, view)),
  );
  return mixedCollectionReply(context, call, members, view);
}

/** `GET /groups/{id}/memberOf`: parent groups, directory roles and administrative units. */
export function listGroupMemberOf(
  context: GraphContext,
  call: GraphCall,
  groupId: string,
): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  namedGroup(context, groupId);
  const view = context.readView();
  noteStaleRead(context, context.store.memberships.hasStaleContainerEdge(groupId, view));
  return mixedCollectionReply(
    context,
    call,
    context.store.memberships.visibleContainers(groupId, view),
    view,
  );
}
