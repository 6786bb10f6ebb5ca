import type { GraphCall, GraphContext } from './graph-context.js';
import { GraphRequestError } from './graph-error.js';
import type { GraphReply } from './graph-error.js';
import { groupsDelta } from './routes/group-delta-routes.js';
import { usersDelta } from './routes/user-delta-routes.js';
import {
  getGroup,
  listGroupMemberOf,
  listGroupMembers,
  listGroups,
} from './routes/group-routes.js';
import {
  addMemberReference,
  bindMembers,
  deleteMemberObject,
  removeMemberReference,
} from './routes/membership-write-routes.js';
import { refuseCast } from './routes/mixed-collection.js';
import {
  createUser,
  deleteUser,
  getUser,
  listUserMemberOf,
  listUsers,
  updateUser,
} from './routes/user-routes.js';

type Handler = (context: GraphContext, call: GraphCall) => GraphReply;
type MethodTable = Partial<Record<string, Handler>>;

/**
 * Dispatches one Graph v1.0 call (already authenticated and counted against the budget)
 * to its handler. Unknown paths answer like Graph: 400 "Resource not found for the
 * segment"; a known path with another method answers 405.
 */
export function routeGraphCall(context: GraphContext, call: GraphCall): GraphReply {
  const table = methodsFor(call.segments);
  const handler = table[call.method];
  if (handler === undefined) {
    if (Object.keys(table).length === 0) {
      const segment = call.segments.find((s) => s !== '') ?? '';
      throw new GraphRequestError(
        400,
        'BadRequest',
        `Resource not found for the segment '${segment}'.`,
      );
    }
    throw new GraphRequestError(
      405,
      'Request_BadRequest',
      'The specified HTTP method is not allowed for the request target.',
    );
  }
  return handler(context, call);
}

function methodsFor(segments: readonly string[]): MethodTable {
  const [collection, id, relation, memberId, ref, ...rest] = segments;
  if (rest.length > 0) return {};
  if (collection === 'users') return userMethods(id, relation, memberId, ref);
  if (collection === 'groups') return groupMethods(id, relation, memberId, ref);
  return {};
}

function userMethods(
  id: string | undefined,
  relation: string | undefined,
  cast: string | undefined,
  extra: string | undefined,
): MethodTable {
  if (extra !== undefined) return {};
  if (id === undefined) return { GET: listUsers, POST: createUser };
  // `/delta` is Graph's shortcut for `/microsoft.graph.delta`; user ids are GUIDs.
  if (id === 'delta' || id === 'microsoft.graph.delta') {
    return relation === undefined ? { GET: usersDelta } : {};
  }
  if (relation === undefined) {
    return {
      GET: (c, call) => getUser(c, call, id),
      PATCH: (c, call) => updateUser(c, call, id),
      DELETE: (c, call) => deleteUser(c, call, id),
    };
  }
  if (relation === 'memberOf') {
    if (cast !== undefined) return { GET: () => refuseCast(cast) };
    return { GET: (c, call) => listUserMemberOf(c, call, id) };
  }
  return {};
}

function groupMethods(
  id: string | undefined,
  relation: string | undefined,
  memberId: string | undefined,
  ref: string | undefined,
): MethodTable {
  if (id === undefined) return { GET: listGroups };
  // `/delta` is Graph's shortcut for `/microsoft.graph.delta`; group ids are GUIDs.
  if (id === 'delta' || id === 'microsoft.graph.delta') {
    return relation === undefined ? { GET: groupsDelta } : {};
  }
  if (relation === undefined) {
    return {
      GET: (c, call) => getGroup(c, call, id),
      PATCH: (c, call) => bindMembers(c, call, id),
    };
  }
  if (relation === 'memberOf') {
    if (memberId !== undefined) return ref === undefined ? { GET: () => refuseCast(memberId) } : {};
    return { GET: (c, call) => listGroupMemberOf(c, call, id) };
  }
  if (relation !== 'members') return {};
  if (memberId === undefined) return { GET: (c, call) => listGroupMembers(c, call, id) };
  if (memberId === '$ref')
    return ref === undefined ? { POST: (c, call) => addMemberReference(c, call, id) } : {};
  if (ref === '$ref') return { DELETE: (c, call) => removeMemberReference(c, call, id, memberId) };
  if (ref !== undefined) return {};
  if (memberId.startsWith('microsoft.graph.')) return { GET: () => refuseCast(memberId) };
  return { DELETE: (c, call) => deleteMemberObject(c, call, id, memberId) };
}
