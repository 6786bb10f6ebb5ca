import { decodeDeltaState, encodeDeltaState, type DeltaState } from '../delta-token.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import { parseSelect } from '../list-query.js';
import { jsonReply } from './graph-replies.js';

/** The positions of a change log a delta round reads between. */
export interface DeltaLog {
  readonly position: number;
  visiblePosition(asOf: number): number;
}

/** One item of a round and how many member references it carries (pages are cut by both). */
export interface DeltaItem {
  body: Record<string, unknown>;
  references: number;
}

/** graph-behaviour.md / Graph's group delta: at most 50 objects in `$filter=id eq ... or ...`. */
const MAX_FILTERED_IDS = 50;

const ID_CLAUSE = /^\s*id\s+eq\s+'([^']+)'\s*$/i;

/**
 * The round a delta request belongs to (Microsoft's "Use delta query to track changes"):
 * the first request without a token starts an initial round of every object; `$deltatoken=latest`
 * answers nothing and a link at the current state; a `$skiptoken` continues a round; a
 * `$deltatoken` starts the round of what changed since. Query options of the round's first
 * request travel inside the tokens. Each round is read from a replica: it ends at the last
 * change committed this read's replication delay ago, and what it cannot show yet comes in the
 * next round. `undefined`: a `latest` request, answered by {@link latestReply}.
 */
export function deltaRound(
  context: GraphContext,
  call: GraphCall,
  log: DeltaLog,
): DeltaState | undefined {
  const now = context.now();
  const generation = context.settings.deltaTokenGeneration;
  const deltaToken = call.query.get('$deltatoken');
  const skipToken = call.query.get('$skiptoken');
  if (deltaToken === 'latest') return undefined;
  if (skipToken !== null) return decodeDeltaState(skipToken, now, generation);
  const asOf = now - context.readView().delayMs;
  if (deltaToken !== null) {
    const previous = decodeDeltaState(deltaToken, now, generation);
    return {
      ...previous,
      from: previous.to,
      to: Math.max(previous.to, log.visiblePosition(asOf)),
      offset: 0,
      asOf,
      issuedAt: now,
    };
  }
  const ids = readIdFilter(call);
  return {
    from: undefined,
    to: log.visiblePosition(asOf),
    offset: 0,
    select: parseSelect(call.query),
    ...(ids === undefined ? {} : { ids }),
    asOf,
    issuedAt: now,
    generation,
  };
}

/** `$deltatoken=latest`: no objects, and a delta link at the log's current position. */
export function latestReply(
  context: GraphContext,
  call: GraphCall,
  log: DeltaLog,
  collection: string,
): GraphReply {
  const ids = readIdFilter(call);
  return deltaReply(context, collection, [], {
    deltaLink: {
      from: log.position,
      to: log.position,
      offset: 0,
      select: parseSelect(call.query),
      ...(ids === undefined ? {} : { ids }),
      issuedAt: context.now(),
      generation: context.settings.deltaTokenGeneration,
    },
  });
}

/**
 * One page of the round's items from the state's offset: at most `pageSize` items and
 * `referencesPerPage` member references (an item alone may fill a page), then
 * `@odata.nextLink`, or on the last page the `@odata.deltaLink` for the next round.
 */
export function deltaPage(
  context: GraphContext,
  collection: string,
  items: readonly DeltaItem[],
  state: DeltaState,
  limits: { pageSize: number; referencesPerPage: number },
): GraphReply {
  let end = state.offset;
  let references = 0;
  while (end < items.length && end - state.offset < limits.pageSize) {
    const next = items[end]!.references;
    if (end > state.offset && references + next > limits.referencesPerPage) break;
    references += next;
    end += 1;
  }
  const value = items.slice(state.offset, end).map((item) => item.body);
  if (end < items.length) {
    return deltaReply(context, collection, value, { nextLink: { ...state, offset: end } });
  }
  return deltaReply(context, collection, value, {
    deltaLink: { ...state, from: state.to, offset: 0 },
  });
}

/** Whether the round tracks this object (`$filter=id eq ...`). */
export function inRound(state: DeltaState, id: string): boolean {
  return state.ids === undefined || state.ids.includes(id);
}

/**
 * Graph's only `$filter` on delta: `id eq '...'`, joined with `or`, for at most 50 objects.
 * Anything else answers 400, as Graph does.
 */
function readIdFilter(call: GraphCall): string[] | undefined {
  const filter = call.query.get('$filter');
  if (filter === null) return undefined;
  const clauses = filter.split(/\s+or\s+/i);
  const ids = clauses.map((clause) => ID_CLAUSE.exec(clause)?.[1]);
  if (ids.some((id) => id === undefined)) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      "Unsupported filter on delta query: only id eq '{id}' clauses joined by 'or' are supported.",
    );
  }
  if (ids.length > MAX_FILTERED_IDS) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      `Too many ids in the delta filter: at most ${MAX_FILTERED_IDS}.`,
    );
  }
  return ids as string[];
}

function deltaReply(
  context: GraphContext,
  collection: string,
  value: unknown[],
  next: { nextLink: DeltaState } | { deltaLink: DeltaState },
): GraphReply {
  const base = `${context.graphEndpoint()}/v1.0/${collection}/delta`;
  return jsonReply(200, {
    '@odata.context': `${context.graphEndpoint()}/v1.0/$metadata#${collection}`,
    ...('nextLink' in next
      ? { '@odata.nextLink': `${base}?$skiptoken=${encodeDeltaState(next.nextLink)}` }
      : { '@odata.deltaLink': `${base}?$deltatoken=${encodeDeltaState(next.deltaLink)}` }),
    value,
  });
}
