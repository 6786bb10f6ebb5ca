import { createRequire } from 'node:module';
import { QueueClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { describe, expect, it } from 'vitest';
import { startAzurite } from '../../../src/runtime/local-host/azurite';
import type { LokiDatabase } from '../../../src/runtime/local-host/azurite-patches';
import {
  lightenQueueExtents,
  lightenQueueMessages,
  QUEUE_EXTENTS_COLLECTION,
  QUEUE_MESSAGES_COLLECTION,
} from '../../../src/runtime/local-host/azurite-queue-store';

/*
 * The patches to Azurite's LokiJS store (src/runtime/local-host/azurite-patches.ts,
 * azurite-queue-store.ts) must
 * keep applying as Azurite changes, and must never change an answer: the first tests watch
 * LokiJS's calls under a real Azurite, the last one runs Azurite's own queue store with and
 * without the patches through the same operations and compares every answer and every row.
 */

const load = createRequire(require.resolve('azurite/package.json'));

interface Collection {
  name: string;
  ensureAllIndexes: (force?: boolean) => void;
}
interface Resultset {
  collection: Collection;
  filterInitialized: boolean;
  find: (query: unknown, firstOnly?: boolean) => Resultset;
}
const loki = load('lokijs') as {
  Collection: { prototype: Collection };
  Resultset: { prototype: Resultset };
};

/**
 * Records, while `run` runs, each query on several properties that starts a LokiJS search
 * (its property names in order, by collection) and each forced index rebuild; puts LokiJS
 * back after (the test workers share their modules).
 */
async function watchLoki(run: () => Promise<void>) {
  const searches: { collection: string; keys: string[] }[] = [];
  const rebuilds: string[] = [];
  const { find } = loki.Resultset.prototype;
  const { ensureAllIndexes } = loki.Collection.prototype;
  loki.Resultset.prototype.find = function (this: Resultset, query, firstOnly) {
    if (!this.filterInitialized && typeof query === 'object' && query !== null) {
      const keys = Object.keys(query);
      if (keys.length > 1) searches.push({ collection: this.collection.name, keys });
    }
    return find.call(this, query, firstOnly);
  };
  loki.Collection.prototype.ensureAllIndexes = function (this: Collection, force) {
    if (force === true) rebuilds.push(this.name);
    ensureAllIndexes.call(this, force);
  };
  try {
    await run();
  } finally {
    loki.Resultset.prototype.find = find;
    loki.Collection.prototype.ensureAllIndexes = ensureAllIndexes;
  }
  return { searches, rebuilds };
}

describe("Azurite's store patches", () => {
  it('apply under a real Azurite: expired messages are looked for only once one can have expired, by expiry first; messages by id first; entities by row key first', async () => {
    const azurite = await startAzurite();
    try {
      const queue = new QueueClient(azurite.connectionString, 'patched');
      await queue.create();
      const table = TableClient.fromConnectionString(azurite.connectionString, 'Patched', {
        allowInsecureConnection: true,
      });
      await table.createTable();
      await queue.sendMessage('short-lived', { messageTimeToLive: 1 });
      for (let i = 0; i < 5; i += 1) await queue.sendMessage(`m${i}`);
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      const seen = await watchLoki(async () => {
        const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 3 });
        expect(receivedMessageItems.map((item) => item.messageText)).toEqual(['m0', 'm1', 'm2']);
        const [first, second] = receivedMessageItems;
        await queue.updateMessage(first!.messageId, first!.popReceipt, 'again', 30);
        await queue.deleteMessage(second!.messageId, second!.popReceipt);
        await table.upsertEntity({ partitionKey: 'p', rowKey: 'r', value: 1 });
        await table.getEntity('p', 'r');
      });

      const messageSearches = seen.searches
        .filter((search) => search.collection === QUEUE_MESSAGES_COLLECTION)
        .map((search) => search.keys.join());
      // Receive, update and delete each clear the expired messages first: the receive finds
      // and removes the short-lived one (the one index rebuild), the others look for none.
      expect(messageSearches.filter((keys) => keys.includes('expirationTime'))).toEqual([
        'expirationTime,accountName,queueName',
      ]);
      expect(seen.rebuilds).toEqual([QUEUE_MESSAGES_COLLECTION]);
      expect(messageSearches).toContain('messageId,accountName,queueName');
      expect(messageSearches).not.toContain('accountName,queueName,messageId');
      const entitySearches = seen.searches
        .filter((search) => search.collection.includes('Patched'))
        .map((search) => search.keys.join());
      expect(entitySearches.length).toBeGreaterThan(0);
      expect(new Set(entitySearches)).toEqual(new Set(['RowKey,PartitionKey']));
    } finally {
      await azurite.close();
    }
  });

  it('keep what a queue answers: expired messages vanish, visibility, dequeue counts, pop receipts and 404s as before', async () => {
    const azurite = await startAzurite();
    try {
      const queue = new QueueClient(azurite.connectionString, 'answers');
      await queue.create();
      await queue.sendMessage('short-lived', { messageTimeToLive: 1 });
      await queue.sendMessage('kept');
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      const peeked = await queue.peekMessages({ numberOfMessages: 5 });
      expect(peeked.peekedMessageItems.map((item) => item.messageText)).toEqual(['kept']);
      const received = await queue.receiveMessages({ visibilityTimeout: 1 });
      const [kept] = received.receivedMessageItems;
      expect(kept).toMatchObject({ messageText: 'kept', dequeueCount: 1 });
      expect((await queue.receiveMessages()).receivedMessageItems).toEqual([]);
      await expect(queue.deleteMessage(kept!.messageId, 'not-the-receipt')).rejects.toMatchObject({
        statusCode: 400,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const again = (await queue.receiveMessages()).receivedMessageItems[0];
      expect(again).toMatchObject({ messageId: kept!.messageId, dequeueCount: 2 });
      await expect(queue.deleteMessage(kept!.messageId, kept!.popReceipt)).rejects.toMatchObject({
        statusCode: 400,
      });
      await queue.deleteMessage(again!.messageId, again!.popReceipt);
      await expect(queue.deleteMessage(again!.messageId, again!.popReceipt)).rejects.toMatchObject({
        statusCode: 404,
      });
      expect((await queue.getProperties()).approximateMessagesCount).toBe(0);
    } finally {
      await azurite.close();
    }
  });

  it("answer Azurite's queue store as it answers unpatched, through a thousand operations on queues of the same name in two accounts", async () => {
    const plain = await queueStore();
    const patched = await queueStore();
    lightenQueueMessages(patched.db);
    const random = seeded(15);
    const now = Date.now();
    // The same queue names in two accounts, and the same message ids in every queue: each
    // lookup must still match all its conditions.
    const queues = ['alpha', 'beta'].flatMap((name) =>
      [ACCOUNT, 'otheraccount'].map((accountName) => ({ accountName, name })),
    );
    for (const store of [plain, patched]) {
      for (const queue of queues) await store.createQueue({ ...queue });
    }
    const sentTo = new Map<string, number>();
    const run = async (operation: (store: QueueStore) => Promise<unknown>) => {
      const answers = await Promise.all([plain, patched].map((store) => settle(operation(store))));
      expect(answers[1]).toEqual(answers[0]);
      return answers[0]!;
    };

    let sent = 0;
    let expiredSent = 0;
    const received: { queue: Queue; messageId: string; popReceipt: string }[] = [];
    for (let step = 0; step < 1_000; step += 1) {
      const queue = queues[Math.floor(random() * queues.length)]!;
      const { accountName, name } = queue;
      const choice = random();
      if (choice < 0.45) {
        sent += 1;
        // Half of them expired already (a clock ahead of the sender's), the others in a
        // week; visible times repeat, so the indexes hold equal values.
        const expired = random() < 0.5;
        if (expired) expiredSent += 1;
        const ttl = expired ? -1_000 : 7 * 86_400_000;
        const number = (sentTo.get(`${accountName}/${name}`) ?? 0) + 1;
        sentTo.set(`${accountName}/${name}`, number);
        const message = {
          accountName,
          queueName: name,
          messageId: `id-${number}`,
          popReceipt: `sent-${sent}`,
          timeNextVisible: new Date(now - 1_000 * Math.floor(random() * 3)),
          insertionTime: new Date(now),
          expirationTime: new Date(now + ttl),
          dequeueCount: 0,
          persistency: { id: 'extent', offset: sent * 10, count: 10 },
        };
        await run((store) => store.insertMessage(structuredClone(message)));
      } else if (choice < 0.7) {
        const popReceipt = `received-${step}`;
        const answer = await run((store) =>
          store.getMessages(
            accountName,
            name,
            new Date(now + 30_000),
            popReceipt,
            3,
            new Date(now),
          ),
        );
        for (const message of (answer.value ?? []) as { messageId: string }[]) {
          received.push({ queue, messageId: message.messageId, popReceipt });
        }
      } else if (choice < 0.8) {
        await run((store) => store.peekMessages(accountName, name, 5, new Date(now)));
      } else if (choice < 0.95 && received.length > 0) {
        const taken = received.splice(Math.floor(random() * received.length), 1)[0]!;
        // Now and then with another receipt, or twice: the store's errors must match too.
        const popReceipt = random() < 0.1 ? 'wrong' : taken.popReceipt;
        if (random() < 0.5) {
          await run((store) =>
            store.deleteMessage(
              taken.queue.accountName,
              taken.queue.name,
              taken.messageId,
              popReceipt,
            ),
          );
        } else {
          await run((store) =>
            store.updateMessage(
              {
                accountName: taken.queue.accountName,
                queueName: taken.queue.name,
                messageId: taken.messageId,
                popReceipt: `updated-${step}`,
                timeNextVisible: new Date(now - 500),
              },
              popReceipt,
            ),
          );
        }
      } else {
        await run((store) => store.getMessagesCount(accountName, name));
      }
      if (step % 100 === 99) expect(rowsOf(patched)).toEqual(rowsOf(plain));
    }
    expect(rowsOf(patched)).toEqual(rowsOf(plain));
    // The run removed expired messages along the way (else the removal was never tried).
    const expiredLeft = rowsOf(plain).filter(
      (row) => (row as { expirationTime: Date }).expirationTime.getTime() < now,
    );
    expect(expiredSent).toBeGreaterThan(100);
    expect(expiredLeft.length).toBeLessThan(expiredSent / 10);
  });

  it("delete a queue's unused extents one row at a time, with no index rebuilt, as Azurite's extent store does unpatched", async () => {
    const [plain, patched] = await Promise.all([extentStore(), extentStore()]);
    lightenQueueExtents(patched.db);
    const random = seeded(7);
    const ids = Array.from({ length: 300 }, (_, i) => `extent-${Math.floor(random() * 1e9)}-${i}`);
    for (const store of [plain, patched]) {
      for (const id of ids) {
        await store.updateExtent({ id, locationId: id, path: id, size: 10, lastModifiedInMS: 1 });
      }
    }
    // Azurite's GC deletes the unused ones, in no order, and some twice.
    const deleted = ids.filter(() => random() < 0.6);
    deleted.push(...deleted.slice(0, 10), 'never-stored');
    deleted.sort(() => random() - 0.5);
    const seen = await watchLoki(async () => {
      for (const id of deleted) {
        expect(await patched.deleteExtent(id)).toEqual(await plain.deleteExtent(id));
      }
    });
    expect(seen.rebuilds.filter((name) => name === QUEUE_EXTENTS_COLLECTION)).toHaveLength(
      deleted.length,
    );
    // Only the unpatched store rebuilt its index: the patched one left the rebuilds to it.
    const extentsOf = async (store: ExtentStore) => {
      const rows = store.db.getCollection(QUEUE_EXTENTS_COLLECTION)?.data ?? [];
      const listed = await store.listExtents();
      return {
        rows: rows.map((row) => [(row as { $loki: number }).$loki, row.id]),
        listed: listed[0].map((row) => row.id),
        // Found through the index of ids, as Azurite finds an extent to update it.
        byId: ids.map((id) => {
          const row = store.db.getCollection(QUEUE_EXTENTS_COLLECTION)?.findOne({ id });
          return (row as { $loki?: number } | null)?.$loki ?? null;
        }),
      };
    };
    const after = await extentsOf(plain);
    expect(await extentsOf(patched)).toEqual(after);
    expect(after.rows).toHaveLength(ids.length - new Set(deleted).size + 1);
  });
});

const ACCOUNT = 'devstoreaccount1';

interface Queue {
  accountName: string;
  name: string;
}

/** Azurite's own queue store (the LokiJS layer under the queue service), in memory. */
interface QueueStore {
  db: LokiDatabase & { getCollection(name: string): { data: object[] } | null };
  init(): Promise<void>;
  createQueue(queue: object): Promise<unknown>;
  insertMessage(message: object): Promise<void>;
  getMessages(
    account: string,
    queue: string,
    timeNextVisible: Date,
    popReceipt: string,
    count: number,
    queryDate: Date,
  ): Promise<unknown>;
  peekMessages(account: string, queue: string, count: number, queryDate: Date): Promise<unknown>;
  deleteMessage(
    account: string,
    queue: string,
    messageId: string,
    popReceipt: string,
  ): Promise<void>;
  updateMessage(message: object, popReceipt: string): Promise<void>;
  getMessagesCount(account: string, queue: string): Promise<number>;
}

/** Azurite's own store of the queue's extents (where message bodies are), in memory. */
interface ExtentStore {
  db: LokiDatabase & {
    getCollection(name: string): {
      data: Record<string, unknown>[];
      findOne: (query: object) => unknown;
    } | null;
  };
  init(): Promise<void>;
  updateExtent(extent: object): Promise<void>;
  deleteExtent(id: string): Promise<unknown>;
  listExtents(): Promise<[{ id: string }[], unknown]>;
}

async function extentStore(): Promise<ExtentStore> {
  const Store = (
    load('./dist/src/common/persistence/LokiExtentMetadataStore') as {
      default: new (path: string, inMemory: boolean) => ExtentStore;
    }
  ).default;
  const store = new Store('patches-test-extents', true);
  await store.init();
  return store;
}

async function queueStore(): Promise<QueueStore> {
  const Store = (
    load('./dist/src/queue/persistence/LokiQueueMetadataStore') as {
      default: new (path: string, inMemory: boolean) => QueueStore;
    }
  ).default;
  const store = new Store('patches-test', true);
  await store.init();
  return store;
}

/**
 * Every message row of a store as LokiJS holds it, in its order, without LokiJS's own
 * times of insertion and update (the two stores wrote at different instants).
 */
function rowsOf(store: QueueStore): object[] {
  const rows = store.db.getCollection(QUEUE_MESSAGES_COLLECTION)?.data ?? [];
  return rows.map((row) => {
    const { meta, ...fields } = structuredClone(row) as { meta?: { revision?: number } };
    return { ...fields, revision: meta?.revision };
  });
}

async function settle(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    const { statusCode, storageErrorCode } = error as Record<string, unknown>;
    return { error: { statusCode, storageErrorCode } };
  }
}

/** A small seeded generator (mulberry32): the same operations in every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
