import {
  define,
  type LokiCollection,
  type LokiDatabase,
  type LokiResultset,
  type LokiRow,
} from './azurite-patches';

/** Azurite's queue messages (azurite/dist/src/queue/persistence/LokiQueueMetadataStore). */
export const QUEUE_MESSAGES_COLLECTION = '$MESSAGES_COLLECTION$';
/** Where the queue's message bodies are (azurite/dist/src/common/persistence/LokiExtentMetadataStore). */
export const QUEUE_EXTENTS_COLLECTION = '$EXTENTS_COLLECTION$';

/**
 * Azurite's queue service keeps each message's body in an extent of its own (in memory) and
 * every minute deletes the extents no message refers to any more, one `findAndRemove({ id
 * })` each. LokiJS removes what such a find found as a list, and removes a list by
 * rebuilding the collection's index from scratch: after a bulk run of 3,000 requests that
 * was 3,000 sorts of 3,000 extents, about 6 s in which Azurite answered nothing (and, in
 * the local host, the service with it). Now each extent found is removed as one row, which
 * LokiJS does by taking it out of the index. The same rows go, and the index holds the same
 * ids in the same order (an extent's id is unique, so no two rows tie). One difference
 * nobody sees: LokiJS strips its own fields (`$loki`, `meta`) from a row removed alone, and
 * the row is Azurite's object of that one call, which it no longer holds.
 */
export function lightenQueueExtents(db: LokiDatabase): void {
  const extents = db.getCollection(QUEUE_EXTENTS_COLLECTION);
  if (extents === null) {
    throw new Error(`Azurite's queue store has no ${QUEUE_EXTENTS_COLLECTION} collection`);
  }
  if (extents.lightQueueExtents === true) return;
  const { findAndRemove } = extents;
  define(extents, 'findAndRemove', function (this: LokiCollection, query: unknown) {
    if (!isExtentQuery(query)) {
      findAndRemove.call(this, query);
      return;
    }
    for (const row of this.find(query)) this.remove(row);
  });
  define(extents, 'lightQueueExtents', true);
}

function isExtentQuery(query: unknown): query is { id: string } {
  if (typeof query !== 'object' || query === null) return false;
  return Object.keys(query).join() === 'id' && typeof (query as { id: unknown }).id === 'string';
}

/**
 * Patches on the queue service's messages, the one LokiJS collection of every queue's
 * messages (the bulk queue holds a thousand at the start of a bulk run), that keep every
 * answer:
 *
 * - Every receive, peek, delete and visibility update first clears the queue's expired
 *   messages: it finds them with `{ accountName, queueName, expirationTime: { $lte: now } }`
 *   and removes the list. LokiJS answers the find through the index of the account (every
 *   message of the account copied, then compared on its queue, then on its expiry), and
 *   removes a list by rebuilding every binary index of the collection from scratch (four
 *   sorts of all the messages) even when the list is empty, as it is nearly always (a
 *   message lives 7 days unless its sender says otherwise). Now the collection keeps a
 *   lower bound of its messages' expiry times: while `now` is below it, no message can
 *   match and the find answers the empty list at once, as LokiJS itself answers a find on
 *   an empty collection. Otherwise it asks for the expiry first (one pass over the
 *   messages; the same three conditions in another order find the same messages, and the
 *   removal does not depend on their order). An empty list then removes nothing, without
 *   the rebuild, which changed no row and no answer: a rebuilt index orders rows of equal
 *   value by position where LokiJS's own updates put the newest first, and every query on
 *   the messages either sorts its result (receive, peek: by visibility time, then
 *   insertion) or matches a message id (one row).
 * - A delete or visibility update finds its message with `findOne({ accountName,
 *   queueName, messageId })`: through the index of the account, every message of the
 *   account compared. Asking for the message id first (a UUID, indexed) finds the same row
 *   after a binary search, as `lookUpRowKeyFirst` does for entities.
 *
 * Installed on the collection object alone, not on LokiJS's prototypes. Throws when the
 * collection is not there (Azurite changed its layout: the patches would silently stop).
 */
export function lightenQueueMessages(db: LokiDatabase): void {
  const messages = db.getCollection(QUEUE_MESSAGES_COLLECTION);
  if (messages === null) {
    throw new Error(`Azurite's queue store has no ${QUEUE_MESSAGES_COLLECTION} collection`);
  }
  if (messages.lightQueueMessages === true) return;
  const expiries = new ExpiryBound(messages.data);
  const { remove, findOne, chain, insertOne, update } = messages;
  define(messages, 'insertOne', function (this: LokiCollection, doc: unknown, bulk?: boolean) {
    expiries.add(doc);
    return insertOne.call(this, doc, bulk);
  });
  define(messages, 'update', function (this: LokiCollection, doc: unknown) {
    // A list is updated one row at a time, through this method again.
    if (!Array.isArray(doc)) expiries.add(doc);
    return update.call(this, doc);
  });
  define(messages, 'remove', function (this: LokiCollection, doc: unknown) {
    if (Array.isArray(doc) && doc.length === 0) return undefined;
    return remove.call(this, doc);
  });
  define(messages, 'findOne', function (this: LokiCollection, query: unknown) {
    if (isMessageQuery(query)) {
      const { messageId, accountName, queueName } = query;
      return findOne.call(this, { messageId, accountName, queueName });
    }
    return findOne.call(this, query);
  });
  define(messages, 'chain', function (this: LokiCollection, ...args: unknown[]) {
    const resultset = chain.apply(this, args);
    const { find } = resultset;
    define(resultset, 'find', function (this: LokiResultset, query: unknown, firstOnly?: boolean) {
      if (!isExpiryQuery(query)) return find.call(this, query, firstOnly);
      const { expirationTime, accountName, queueName } = query;
      if (!this.filterInitialized && expiries.noneBy(expirationTime.$lte, this.collection.data)) {
        this.filteredrows = [];
        this.filterInitialized = true;
        return this;
      }
      return find.call(this, { expirationTime, accountName, queueName }, firstOnly);
    });
    return resultset;
  });
  define(messages, 'lightQueueMessages', true);
}

/**
 * A lower bound of the messages' expiry times, in ms. LokiJS's `$lte` compares a Date
 * with a number by the Date's time (`Number(date)`); a row whose expiry is anything else
 * (a text, as after a reload from disk, or nothing) sets the bound to -Infinity, so that
 * the bound never claims what the comparison would not. Rows only lower it as they come
 * (insert, update); when `now` reaches it, it is measured again from the rows themselves,
 * since removed rows may have held it.
 */
class ExpiryBound {
  private bound: number;

  constructor(rows: LokiRow[]) {
    this.bound = earliestOf(rows);
  }

  add(doc: unknown): void {
    if (typeof doc !== 'object' || doc === null) return;
    this.bound = Math.min(this.bound, expiryOf((doc as LokiRow).expirationTime));
  }

  /** True when no row can have expired by `now` (LokiJS's `$lte` would match none). */
  noneBy(now: unknown, rows: LokiRow[]): boolean {
    if (typeof now !== 'number' || Number.isNaN(now)) return false;
    if (now < this.bound) return true;
    this.bound = earliestOf(rows);
    return now < this.bound;
  }
}

function earliestOf(rows: LokiRow[]): number {
  let earliest = Infinity;
  for (const row of rows) earliest = Math.min(earliest, expiryOf(row.expirationTime));
  return earliest;
}

function expiryOf(value: unknown): number {
  if (!(value instanceof Date)) return -Infinity;
  const time = value.getTime();
  return Number.isNaN(time) ? -Infinity : time;
}

function isExpiryQuery(
  query: unknown,
): query is { accountName: string; queueName: string; expirationTime: { $lte: unknown } } {
  if (typeof query !== 'object' || query === null) return false;
  const { accountName, queueName, expirationTime } = query as Record<string, unknown>;
  return (
    Object.keys(query).length === 3 &&
    typeof accountName === 'string' &&
    typeof queueName === 'string' &&
    typeof expirationTime === 'object' &&
    expirationTime !== null &&
    Object.keys(expirationTime).join() === '$lte'
  );
}

function isMessageQuery(
  query: unknown,
): query is { accountName: string; queueName: string; messageId: string } {
  if (typeof query !== 'object' || query === null) return false;
  const { accountName, queueName, messageId } = query as Record<string, unknown>;
  return (
    Object.keys(query).length === 3 &&
    typeof accountName === 'string' &&
    typeof queueName === 'string' &&
    typeof messageId === 'string'
  );
}
