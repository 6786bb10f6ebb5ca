import { GraphRequestError } from './graph-error.js';

/** graph-behaviour.md: delta links of directory objects expire after 7 days. */
export const DELTA_TOKEN_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The state a delta token stands for. Graph's tokens are opaque to clients; the sandbox's
 * carry the round they belong to and the query options of the round's first request, as
 * Graph encodes them into its links.
 */
export interface DeltaState {
  /** Log position the round starts after; undefined for an initial round (every current group). */
  from: number | undefined;
  /** Log position the round ends at: the next round starts after it. */
  to: number;
  /** Items of the round already served (a `$skiptoken` within a round). */
  offset: number;
  select: string[] | undefined;
  /** `$filter=id eq '...' or ...`: the only objects the rounds track; undefined: all. */
  ids?: string[];
  /**
   * The commit time the round's replica shows (the clock less this read's replication delay):
   * objects are shown as they were then, and `to` is the last change committed by then.
   */
  asOf?: number;
  /** When the round's first request was made (sandbox clock): the token expires from then. */
  issuedAt: number;
  /** The token generation: `expireDeltaTokens()` moves it on and every older token expires. */
  generation: number;
}

const PREFIX = 'sbxdelta1.';

/** An opaque token for a `$deltatoken` or `$skiptoken`. */
export function encodeDeltaState(state: DeltaState): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(state)).toString('base64url')}`;
}

/**
 * The state of a token, or the error Graph answers: 400 `syncStateNotFound` for a token
 * older than seven days or of an earlier generation, 400 `Request_BadRequest` for one the
 * sandbox never issued.
 */
export function decodeDeltaState(token: string, now: number, generation: number): DeltaState {
  let state: Partial<DeltaState> | undefined;
  if (token.startsWith(PREFIX)) {
    try {
      state = JSON.parse(
        Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'),
      ) as Partial<DeltaState>;
    } catch {
      state = undefined;
    }
  }
  if (
    state === undefined ||
    typeof state.to !== 'number' ||
    typeof state.offset !== 'number' ||
    typeof state.issuedAt !== 'number' ||
    typeof state.generation !== 'number'
  ) {
    throw new GraphRequestError(400, 'Request_BadRequest', 'Invalid delta or skip token.');
  }
  if (state.generation !== generation || now - state.issuedAt > DELTA_TOKEN_LIFETIME_MS) {
    throw new GraphRequestError(
      400,
      'syncStateNotFound',
      'The sync state generation is not found. The delta token is expired and data must be synchronized again.',
    );
  }
  return {
    from: typeof state.from === 'number' ? state.from : undefined,
    to: state.to,
    offset: state.offset,
    select: Array.isArray(state.select) ? state.select.map(String) : undefined,
    ...(Array.isArray(state.ids) ? { ids: state.ids.map(String) } : {}),
    ...(typeof state.asOf === 'number' ? { asOf: state.asOf } : {}),
    issuedAt: state.issuedAt,
    generation: state.generation,
  };
}
