import { checkSelect, shapeDirectoryObject } from '../directory-object-shapes.js';
import type { DirectoryRecord } from '../directory-store.js';
import { decodeDeltaState, encodeDeltaState, type DeltaState } from '../delta-token.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import type { FoldedGroupChange } from '../group-change-log.js';
import { parseSelect } from '../list-query.js';
import { GRAPH_PERMISSIONS, requireAnyRole } from '../permissions.js';
import { jsonReply } from './graph-replies.js';

/**
 * Relationships a delta query may select to track them (`members` gives `members@delta`).
 * The sandbox does not track membership changes yet: a round would have to fold the
 * membership graph's edges by sequence number as the group log folds properties, and
 * render them in {@link deltaItem}.
 */
const TRACKED_RELATIONSHIPS = new Set(['members', 'owners']);

/**
 * `GET /groups/delta` (graph-behaviour.md: Batching and incremental reads; Microsoft's
 * "Use delta query to track changes"): the first request of a round without a token lists
 * every group; `$deltatoken=latest` answers no groups and a delta link at the current
 * state; a `$deltatoken` from a delta link lists the groups created, updated or deleted
 * since. A round is served in pages of `deltaPageSize` joined by `@odata.nextLink`
 * (`$skiptoken`), and its last page carries the `@odata.deltaLink` for the next round.
 * Query options of the round's first request travel inside the tokens; `$top` is ignored,
 * as Graph ignores it on delta. Created groups come whole; updated ones as their id and
 * the selected properties that changed; deleted ones as their id with
 * `@removed: { reason: 'changed' }` (deleted groups stay restorable for 30 days). A token
 * older than seven days or issued before `expireDeltaTokens()` answers 400
 * `syncStateNotFound`.
 */
export function groupsDelta(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  const now = context.now();
  const generation = context.settings.deltaTokenGeneration;
  const log = context.store.groupChanges;
  const deltaToken = call.query.get('$deltatoken');
  const skipToken = call.query.get('$skiptoken');
  if (call.query.has('$filter')) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      'The Graph sandbox does not support $filter on delta queries.',
    );
  }

  let state: DeltaState;
  if (deltaToken === 'latest') {
    const select = readSelect(call);
    return deltaReply(context, [], {
      deltaLink: {
        from: log.position,
        to: log.position,
        offset: 0,
        select,
        issuedAt: now,
        generation,
      },
    });
  } else if (skipToken !== null) {
    state = decodeDeltaState(skipToken, now, generation);
  } else if (deltaToken !== null) {
    const previous = decodeDeltaState(deltaToken, now, generation);
    state = { ...previous, from: previous.to, to: log.position, offset: 0, issuedAt: now };
  } else {
    state = {
      from: undefined,
      to: log.position,
      offset: 0,
      select: readSelect(call),
      issuedAt: now,
      generation,
    };
  }

  const items = roundItems(context, state);
  const end = state.offset + context.settings.deltaPageSize;
  const value = items.slice(state.offset, end);
  if (end < items.length)
    return deltaReply(context, value, { nextLink: { ...state, offset: end } });
  return deltaReply(context, value, {
    deltaLink: { ...state, from: state.to, offset: 0, issuedAt: now },
  });
}

function readSelect(call: GraphCall): string[] | undefined {
  const select = parseSelect(call.query);
  const tracked = select?.filter((property) => TRACKED_RELATIONSHIPS.has(property)) ?? [];
  if (tracked.length > 0) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      `The Graph sandbox does not track ${tracked.join(', ')} in delta queries yet.`,
    );
  }
  checkSelect('group', select);
  return select;
}

/**
 * Every item of the round, in the order of the log up to the round's end, so that its pages
 * can be cut by offset while the directory keeps changing. An initial round lists the
 * groups that existed at its start; one deleted since shows as removed (Graph's initial
 * rounds do that too).
 */
function roundItems(context: GraphContext, state: DeltaState): Record<string, unknown>[] {
  const changes = context.store.groupChanges.foldRange(state.from ?? 0, state.to);
  const items: Record<string, unknown>[] = [];
  for (const change of changes) {
    // As in GET /groups: a group no app may read is left out.
    if (context.limitedGroups.has(change.groupId)) continue;
    const group = context.store.group(change.groupId);
    if (state.from !== undefined) items.push(deltaItem(change, group, state.select));
    else if (!change.deleted) {
      items.push(
        group === undefined
          ? { id: change.groupId, '@removed': { reason: 'changed' } }
          : shape(group, state.select),
      );
    }
  }
  return items;
}

/** One changed group as a delta round shows it (the current state of what changed). */
function deltaItem(
  change: FoldedGroupChange,
  group: DirectoryRecord | undefined,
  select: string[] | undefined,
): Record<string, unknown> {
  if (group === undefined || change.deleted) {
    return { id: change.groupId, '@removed': { reason: 'changed' } };
  }
  if (change.created) return shape(group, select);
  const whole = shape(group, select);
  const item: Record<string, unknown> = { id: group.id };
  for (const property of change.properties) {
    if (property in whole) item[property] = whole[property];
  }
  return item;
}

function shape(group: DirectoryRecord, select: string[] | undefined): Record<string, unknown> {
  return shapeDirectoryObject('group', group, select, { withType: false, readable: true });
}

function deltaReply(
  context: GraphContext,
  value: unknown[],
  next: { nextLink: DeltaState } | { deltaLink: DeltaState },
): GraphReply {
  const base = `${context.graphEndpoint()}/v1.0/groups/delta`;
  return jsonReply(200, {
    '@odata.context': `${context.graphEndpoint()}/v1.0/$metadata#groups`,
    ...('nextLink' in next
      ? { '@odata.nextLink': `${base}?$skiptoken=${encodeDeltaState(next.nextLink)}` }
      : { '@odata.deltaLink': `${base}?$deltatoken=${encodeDeltaState(next.deltaLink)}` }),
    value,
  });
}
