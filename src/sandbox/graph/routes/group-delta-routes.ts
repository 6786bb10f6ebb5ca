import { ODATA_TYPES, checkSelect, shapeDirectoryObject } from '../directory-object-shapes.js';
import type { DirectoryObjectKind, DirectoryRecord } from '../directory-store.js';
import type { DeltaState } from '../delta-token.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import type { FoldedGroupChange } from '../group-change-log.js';
import { parseSelect } from '../list-query.js';
import { GRAPH_PERMISSIONS, requireAnyRole } from '../permissions.js';
import { deltaPage, deltaRound, inRound, latestReply, type DeltaItem } from './delta-round.js';

/** Relationships a delta query may select: `members` gives `members@delta`. */
const TRACKED_RELATIONSHIPS = new Set(['members']);
/** Relationships Graph tracks but the sandbox does not: refused rather than ignored. */
const UNTRACKED_RELATIONSHIPS = new Set(['owners']);

/**
 * `GET /groups/delta` (graph-behaviour.md: Batching and incremental reads; Microsoft's
 * "Get incremental changes for groups"): see {@link deltaRound} for rounds, tokens, lag and
 * `$filter=id eq`. Created groups come whole; updated ones as their id and the selected
 * properties that changed; deleted ones as their id with `@removed: { reason: 'changed' }`
 * (deleted groups stay restorable for 30 days), and so are groups `reportGroupRemoved` names
 * (out of the query's scope, or a replica's word). With `$select=members`, an initial round
 * lists each group's direct members in `members@delta` and later rounds the members added
 * and removed (`@removed`); a group with more members than fit a page comes again on the
 * next pages with the rest, as Graph splits large groups. `$top` is ignored, as Graph ignores
 * it on delta. A token older than seven days or issued before `expireDeltaTokens()` answers
 * 400 `syncStateNotFound`.
 */
export function groupsDelta(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readGroups);
  if (call.query.has('$select')) checkGroupSelect(parseSelect(call.query) ?? []);
  const log = context.store.groupChanges;
  const state = deltaRound(context, call, log);
  if (state === undefined) return latestReply(context, call, log, 'groups');
  const limits = {
    pageSize: context.settings.deltaPageSize,
    referencesPerPage: context.settings.deltaReferencesPerPage,
  };
  return deltaPage(context, 'groups', roundItems(context, state, limits), state, limits);
}

function checkGroupSelect(select: readonly string[]): void {
  const untracked = select.filter((property) => UNTRACKED_RELATIONSHIPS.has(property));
  if (untracked.length > 0) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      `The Graph sandbox does not track ${untracked.join(', ')} in delta queries.`,
    );
  }
  checkSelect(
    'group',
    select.filter((property) => !TRACKED_RELATIONSHIPS.has(property)),
  );
}

/**
 * Every item of the round, in the order of the log up to the round's end, so that its pages
 * can be cut by offset while the directory keeps changing. An initial round lists the
 * groups that existed at its end, with their members at that point; one deleted since shows
 * as removed (Graph's initial rounds do that too).
 */
function roundItems(
  context: GraphContext,
  state: DeltaState,
  limits: { referencesPerPage: number },
): DeltaItem[] {
  const log = context.store.groupChanges;
  const withMembers = state.select === undefined || state.select.includes('members');
  const select = state.select?.filter((property) => !TRACKED_RELATIONSHIPS.has(property));
  const membersAtEnd =
    withMembers && state.from === undefined ? log.membersAt(state.to) : undefined;
  const items: DeltaItem[] = [];
  for (const change of log.foldRange(state.from ?? 0, state.to)) {
    // As in GET /groups: a group no app may read is left out.
    if (context.limitedGroups.has(change.groupId) || !inRound(state, change.groupId)) continue;
    const group = context.store.group(change.groupId);
    if (group === undefined || change.deleted || context.removedInDelta.has(change.groupId)) {
      if (state.from !== undefined || !change.deleted) items.push(removed(change.groupId));
      continue;
    }
    if (state.from === undefined) {
      const members = [...(membersAtEnd?.get(change.groupId) ?? new Map<string, string>())].map(
        ([id, kind]) => memberReference(id, kind, true),
      );
      items.push(...withMemberChunks(shape(group, select), members, limits, withMembers));
      continue;
    }
    const body = changedProperties(change, group, select);
    const members = withMembers
      ? [...change.members].map(([id, member]) => memberReference(id, member.kind, member.added))
      : [];
    // Only what the round tracks is a change: an unselected property is not one.
    if (!change.created && Object.keys(body).length === 1 && members.length === 0) continue;
    items.push(...withMemberChunks(body, members, limits, withMembers));
  }
  return items;
}

/** A group as the round shows it: whole when created in the range, else its id and what changed. */
function changedProperties(
  change: FoldedGroupChange,
  group: DirectoryRecord,
  select: string[] | undefined,
): Record<string, unknown> {
  const whole = shape(group, select);
  if (change.created) return whole;
  const item: Record<string, unknown> = { id: group.id };
  for (const property of change.properties) {
    if (property in whole) item[property] = whole[property];
  }
  return item;
}

/**
 * The group's item, once per chunk of members that fits a page (Graph's "Paging through
 * members in a large group"): every chunk repeats the group's properties.
 */
function withMemberChunks(
  body: Record<string, unknown>,
  members: readonly Record<string, unknown>[],
  limits: { referencesPerPage: number },
  withMembers: boolean,
): DeltaItem[] {
  if (!withMembers || members.length === 0) return [{ body, references: 0 }];
  const items: DeltaItem[] = [];
  for (let start = 0; start < members.length; start += limits.referencesPerPage) {
    const chunk = members.slice(start, start + limits.referencesPerPage);
    items.push({ body: { ...body, 'members@delta': chunk }, references: chunk.length });
  }
  return items;
}

/** A member in `members@delta`: its type and id, and `@removed` when it left the group. */
function memberReference(id: string, kind: string, added: boolean): Record<string, unknown> {
  return {
    '@odata.type': ODATA_TYPES[kind as DirectoryObjectKind] ?? ODATA_TYPES.user,
    id,
    ...(added ? {} : { '@removed': { reason: 'deleted' } }),
  };
}

function removed(id: string): DeltaItem {
  return { body: { id, '@removed': { reason: 'changed' } }, references: 0 };
}

/** The group's selected properties; `id` always (Graph returns it whatever `$select` says). */
function shape(group: DirectoryRecord, select: string[] | undefined): Record<string, unknown> {
  return {
    id: group.id,
    ...shapeDirectoryObject('group', group, select, { withType: false, readable: true }),
  };
}
