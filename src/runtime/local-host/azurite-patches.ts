/*
 * Narrow patches to the in-process Azurite's LokiJS store that cut its CPU and keep every
 * answer it gives: each one says why the answers stay the same, and
 * test/integration/store/azurite-patches.test.ts fails if one stops applying or changes an
 * answer. Azurite 3.35.0 with LokiJS 1.5.12 (package.json pins Azurite).
 */

interface LokiCollection {
  findOne(this: unknown, query: unknown): unknown;
  remove(this: unknown, doc: unknown): unknown;
  chain(this: unknown, ...args: unknown[]): LokiResultset;
  /** Set on LokiJS's prototype once `lookUpRowKeyFirst` is installed. */
  pointLookupByRowKey?: true;
  /** Set on the messages collection once `lightenQueueMessages` is installed. */
  lightQueueMessages?: true;
}

interface LokiResultset {
  find(this: unknown, query: unknown, firstOnly?: boolean): LokiResultset;
}

/** The LokiJS database under an Azurite service (only what the patches use). */
export interface LokiDatabase {
  getCollection(name: string): LokiCollection | null;
}

/** Azurite's queue messages (azurite/dist/src/queue/persistence/LokiQueueMetadataStore). */
export const QUEUE_MESSAGES_COLLECTION = '$MESSAGES_COLLECTION$';

/**
 * Azurite finds an entity with `findOne({ PartitionKey, RowKey })` (every read, insert and
 * upsert). LokiJS answers a query on two properties through the binary index of the first
 * one and then scans what it found: every row of the partition, so each write into a
 * partition of 20,000 catalogue roles compared 20,000 rows and a large import slowed down
 * quadratically. Asking for the row key first (unique within a partition, also indexed)
 * gives the same row after a binary search. Same answer, same semantics; only the order of
 * the two conditions changes. Installed on LokiJS's prototype: Azurite creates a collection
 * per table as tables are created, and its modules are shared by the process.
 */
export function lookUpRowKeyFirst(load: NodeRequire): void {
  const loki = load('lokijs') as { Collection: { prototype: LokiCollection } };
  const prototype = loki.Collection.prototype;
  if (prototype.pointLookupByRowKey === true) return;
  const findOne = prototype.findOne;
  prototype.findOne = function (this: unknown, query: unknown) {
    if (isPointQuery(query)) {
      return findOne.call(this, { RowKey: query.RowKey, PartitionKey: query.PartitionKey });
    }
    return findOne.call(this, query);
  };
  prototype.pointLookupByRowKey = true;
}

function isPointQuery(query: unknown): query is { PartitionKey: string; RowKey: string } {
  if (typeof query !== 'object' || query === null) return false;
  const keys = Object.keys(query);
  const { PartitionKey, RowKey } = query as Record<string, unknown>;
  return keys.length === 2 && typeof PartitionKey === 'string' && typeof RowKey === 'string';
}

/**
 * Three patches on the queue service's messages, the one collection of every queue's
 * messages (the bulk queue holds a thousand at the start of a bulk run):
 *
 * - Every receive, delete and visibility update first clears the queue's expired messages:
 *   it finds them with `{ accountName, queueName, expirationTime: { $lte: now } }` and
 *   removes the list. LokiJS answers the find through the index of the account (every
 *   message of the account copied, then compared on its queue, then on its expiry) and
 *   removes a list by rebuilding every binary index of the collection from scratch (four
 *   sorts of all the messages), even when the list is empty, as it is but once a week (a
 *   message lives 7 days). Now the find asks for the expiry first (one pass over the
 *   messages, which finds none, then nothing left to compare) and an empty list removes
 *   nothing without the rebuild. The same messages are found and removed: the conditions
 *   are the same three, only their order changes, and the removal does not depend on the
 *   order of the list. The rebuild changed no row and no answer either: a rebuilt index
 *   orders rows of equal value by position where LokiJS's own updates put the newest
 *   first, and every query on the messages either sorts its result (receive, peek: by
 *   visibility time, then insertion) or matches a message id (one row).
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
  const { remove, findOne, chain } = messages;
  define(messages, 'remove', function (this: unknown, doc: unknown) {
    if (Array.isArray(doc) && doc.length === 0) return undefined;
    return remove.call(this, doc);
  });
  define(messages, 'findOne', function (this: unknown, query: unknown) {
    if (isMessageQuery(query)) {
      const { messageId, accountName, queueName } = query;
      return findOne.call(this, { messageId, accountName, queueName });
    }
    return findOne.call(this, query);
  });
  define(messages, 'chain', function (this: unknown, ...args: unknown[]) {
    const resultset = chain.apply(this, args);
    const { find } = resultset;
    define(resultset, 'find', function (this: unknown, query: unknown, firstOnly?: boolean) {
      if (isExpiryQuery(query)) {
        const { expirationTime, accountName, queueName } = query;
        return find.call(this, { expirationTime, accountName, queueName }, firstOnly);
      }
      return find.call(this, query, firstOnly);
    });
    return resultset;
  });
  define(messages, 'lightQueueMessages', true);
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

/** Not enumerable: LokiJS saves a collection's own enumerable properties with its rows. */
function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, configurable: true, writable: true });
}
