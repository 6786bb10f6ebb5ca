import type { DirectoryRecord } from '../directory-store.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError, resourceNotFound } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import { GRAPH_PERMISSIONS, hasAnyRole, requireAnyRole } from '../permissions.js';
import { noContent } from './graph-replies.js';
import { namedGroup } from './named-group.js';
import { requireVisibleToWrites } from './write-visibility.js';

const MAX_BIND_REFERENCES = 20;

/**
 * Refuses member writes to groups Graph will not let an app change (graph-behaviour.md:
 * Group membership writes): dynamic, mail-enabled, on-premises synced, and
 * role-assignable without RoleManagement.ReadWrite.Directory.
 */
function checkMembersWritable(group: DirectoryRecord, roles: readonly string[]): void {
  const groupTypes = Array.isArray(group['groupTypes']) ? (group['groupTypes'] as unknown[]) : [];
  if (groupTypes.includes('DynamicMembership')) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      'Members of a group with a dynamic membership rule are managed by the rule and cannot be added or removed.',
    );
  }
  if (group['onPremisesSyncEnabled'] === true) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      'Unable to update the specified properties for on-premises mastered Directory Sync objects or objects currently undergoing migration.',
    );
  }
  // Microsoft 365 groups (groupTypes Unified) are mail-enabled too, and their members can be
  // written; mail-enabled security groups and distribution lists cannot.
  if (group['mailEnabled'] === true && !groupTypes.includes('Unified')) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      'Cannot Update a mail-enabled security groups and or distribution list.',
    );
  }
  if (
    group['isAssignableToRole'] === true &&
    !hasAnyRole(roles, GRAPH_PERMISSIONS.writeRoleAssignableMembers)
  ) {
    throw new GraphRequestError(
      403,
      'Authorization_RequestDenied',
      'Insufficient privileges to complete the operation.',
    );
  }
}

function writableGroup(context: GraphContext, call: GraphCall, groupId: string): DirectoryRecord {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.writeMembers);
  const group = namedGroup(context, groupId);
  checkMembersWritable(group, call.roles);
  return group;
}

/**
 * The member id of a `@odata.id` reference. The URL must use this Graph endpoint's
 * root (graph-behaviour.md: Tokens: "`@odata.id` URLs must use the same Graph root").
 */
function referencedMember(context: GraphContext, groupId: string, reference: unknown): string {
  const invalid = new GraphRequestError(
    400,
    'Request_BadRequest',
    `Invalid object identifier '${String(reference)}'.`,
  );
  if (typeof reference !== 'string') throw invalid;
  const match = /^(.*)\/v1\.0\/(?:directoryObjects|users|groups)\/([^/?#]+)$/.exec(reference);
  if (match === null || match[1] !== context.graphEndpoint()) throw invalid;
  const memberId = decodeURIComponent(match[2]!);
  const kind = context.store.kindOf(memberId);
  if (kind === undefined) throw resourceNotFound(memberId);
  if (kind !== 'user' && kind !== 'group') throw invalid;
  if (memberId === groupId) {
    throw new GraphRequestError(400, 'Request_BadRequest', 'A group cannot be a member of itself.');
  }
  return memberId;
}

function alreadyExists(): GraphRequestError {
  return new GraphRequestError(
    400,
    'Request_BadRequest',
    "One or more added object references already exist for the following modified properties: 'members'.",
  );
}

/** `POST /groups/{id}/members/$ref` with `{ "@odata.id": ".../directoryObjects/{id}" }` → 204. */
export function addMemberReference(
  context: GraphContext,
  call: GraphCall,
  groupId: string,
): GraphReply {
  writableGroup(context, call, groupId);
  const body = call.body as Record<string, unknown> | null | undefined;
  const memberId = referencedMember(context, groupId, body?.['@odata.id']);
  requireVisibleToWrites(context, memberId);
  if (context.store.memberships.isMember(groupId, memberId)) throw alreadyExists();
  context.store.addMember(groupId, memberId, context.now());
  return noContent();
}

/**
 * `DELETE /groups/{id}/members/{memberId}/$ref` → 204. Not a member → 404
 * `Request_ResourceNotFound` naming the GROUP, as Entra answers it (Graph docs issues
 * #18714, #4847): the same answer as for a group that is gone, so a client cannot tell them
 * apart by the answer. A member id Entra does not know → 404 naming that id.
 */
export function removeMemberReference(
  context: GraphContext,
  call: GraphCall,
  groupId: string,
  memberId: string,
): GraphReply {
  writableGroup(context, call, groupId);
  requireVisibleToWrites(context, memberId);
  if (context.store.kindOf(memberId) === undefined) throw resourceNotFound(memberId);
  if (!context.store.memberships.isMember(groupId, memberId)) throw resourceNotFound(groupId);
  context.store.removeMember(groupId, memberId, context.now());
  return noContent();
}

/**
 * `DELETE /groups/{id}/members/{memberId}` WITHOUT `/$ref` addresses the member object
 * itself: Graph deletes the USER (or group) when the app may (graph-behaviour.md: DANGER).
 */
export function deleteMemberObject(
  context: GraphContext,
  call: GraphCall,
  groupId: string,
  memberId: string,
): GraphReply {
  if (context.store.group(groupId) === undefined) throw resourceNotFound(groupId);
  if (!context.store.memberships.isMember(groupId, memberId)) throw resourceNotFound(memberId);
  if (context.store.kindOf(memberId) === 'user') {
    requireAnyRole(call.roles, GRAPH_PERMISSIONS.writeUsers);
    context.store.deleteUser(memberId, context.now());
  } else {
    requireAnyRole(call.roles, GRAPH_PERMISSIONS.deleteGroups);
    context.store.deleteGroup(memberId, context.now());
  }
  return noContent();
}

/**
 * `PATCH /groups/{id}` with `members@odata.bind` (up to 20): all or nothing, one
 * existing member fails the whole request. Other group properties are not served.
 */
export function bindMembers(context: GraphContext, call: GraphCall, groupId: string): GraphReply {
  const body = call.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GraphRequestError(400, 'BadRequest', 'Empty Payload. JSON content expected.');
  }
  const entries = Object.entries(body as Record<string, unknown>);
  const others = entries.filter(([key]) => key !== 'members@odata.bind').map(([key]) => key);
  if (others.length > 0) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      `The Graph sandbox serves only 'members@odata.bind' on PATCH /groups/{id}, not: ${others.join(', ')}.`,
    );
  }
  writableGroup(context, call, groupId);
  const references = (body as Record<string, unknown>)['members@odata.bind'];
  if (!Array.isArray(references) || references.length === 0) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      "Invalid value specified for property 'members@odata.bind'.",
    );
  }
  if (references.length > MAX_BIND_REFERENCES) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      `Too many references: up to ${MAX_BIND_REFERENCES} members can be added in one request.`,
    );
  }
  const memberIds = references.map((reference) => referencedMember(context, groupId, reference));
  for (const id of memberIds) requireVisibleToWrites(context, id);
  if (memberIds.some((id) => context.store.memberships.isMember(groupId, id)))
    throw alreadyExists();
  const now = context.now();
  for (const id of new Set(memberIds)) context.store.addMember(groupId, id, now);
  return noContent();
}
