import { checkSelect, shapeDirectoryObject } from '../directory-object-shapes.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import type { GraphReply } from '../graph-error.js';
import { parseSelect } from '../list-query.js';
import { GRAPH_PERMISSIONS, requireAnyRole } from '../permissions.js';
import { deltaPage, deltaRound, inRound, latestReply, type DeltaItem } from './delta-round.js';

/**
 * `GET /users/delta` (graph-behaviour.md: Batching and incremental reads; Microsoft's "Get
 * incremental changes for users"): see {@link deltaRound} for rounds, tokens, lag and
 * `$filter=id eq`. An initial round lists every user that existed at its end; later rounds
 * the users created or changed since (with every selected property, as Graph answers without
 * `Prefer: return=minimal`) and the deleted ones as their id with `@removed: { reason:
 * 'changed' }` (deleted users stay restorable for 30 days). Users are shown as the round's
 * replica has them.
 */
export function usersDelta(context: GraphContext, call: GraphCall): GraphReply {
  requireAnyRole(call.roles, GRAPH_PERMISSIONS.readUsers);
  if (call.query.has('$select')) checkSelect('user', parseSelect(call.query));
  const log = context.store.userChanges;
  const state = deltaRound(context, call, log);
  if (state === undefined) return latestReply(context, call, log, 'users');
  const asOf = state.asOf ?? context.now();
  const items: DeltaItem[] = [];
  for (const change of log.foldRange(state.from ?? 0, state.to)) {
    if (!inRound(state, change.userId)) continue;
    const user = change.deleted ? undefined : context.store.userAsOf(change.userId, asOf);
    if (user === undefined) {
      if (state.from !== undefined) {
        items.push({
          body: { id: change.userId, '@removed': { reason: 'changed' } },
          references: 0,
        });
      }
      continue;
    }
    items.push({
      body: {
        id: user.id,
        ...shapeDirectoryObject('user', user, state.select, { withType: false, readable: true }),
      },
      references: 0,
    });
  }
  return deltaPage(context, 'users', items, state, {
    pageSize: context.settings.deltaPageSize,
    referencesPerPage: 0,
  });
}
