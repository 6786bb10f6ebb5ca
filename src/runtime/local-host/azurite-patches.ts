/*
 * Narrow patches to the in-process Azurite's LokiJS store that cut its CPU and keep every
 * answer it gives (the queue's messages have theirs in azurite-queue-store.ts): each
 * one says why the answers stay the same, and test/integration/store/azurite-patches.test.ts
 * fails if one stops applying or changes an answer. Azurite 3.35.0 with LokiJS 1.5.12
 * (package.json pins Azurite).
 */

export interface LokiCollection {
  data: LokiRow[];
  findOne: (this: unknown, query: unknown) => unknown;
  remove: (this: unknown, doc: unknown) => unknown;
  insertOne: (this: unknown, doc: unknown, bulkInsert?: boolean) => unknown;
  find: (this: unknown, query: unknown) => LokiRow[];
  findAndRemove: (this: unknown, query: unknown) => void;
  update: (this: unknown, doc: unknown) => unknown;
  chain: (this: unknown, ...args: unknown[]) => LokiResultset;
  /** Set on LokiJS's prototype once `lookUpRowKeyFirst` is installed. */
  pointLookupByRowKey?: true;
  /** Set on the messages collection once `lightenQueueMessages` is installed. */
  lightQueueMessages?: true;
  /** Set on the extents collection once `lightenQueueExtents` is installed. */
  lightQueueExtents?: true;
}

export type LokiRow = Record<string, unknown>;

export interface LokiResultset {
  collection: LokiCollection;
  filteredrows: number[];
  filterInitialized: boolean;
  find: (this: LokiResultset, query: unknown, firstOnly?: boolean) => LokiResultset;
}

/** The LokiJS database under an Azurite service (only what the patches use). */
export interface LokiDatabase {
  getCollection(name: string): LokiCollection | null;
}

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

/** Not enumerable: LokiJS saves a collection's own enumerable properties with its rows. */
export function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, configurable: true, writable: true });
}
