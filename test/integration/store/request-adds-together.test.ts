import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestIndexEntry } from '../../../src/store/request-index';
import { tableClient } from '../../../src/store/storage-clients';
import { TableRequestIndex } from '../../../src/store/table-request-index';
import { countStorageCalls } from '../../bench/storage-calls';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { idsOf, indexEntry } from '../../support/request-index-entries';

let storage: TestStorage;
let connectionString: string;
let tables = 0;

beforeAll(async () => {
  storage = await startTestStorage();
  if (storage.connection.kind !== 'connectionString') throw new Error('Azurite gives a string');
  connectionString = storage.connection.connectionString;
});
afterAll(() => storage.close());

/** A request index in a table of its own, and its table's client. */
function freshIndex(connection = connectionString): {
  index: TableRequestIndex;
  client: TableClient;
} {
  tables += 1;
  const client = tableClient(
    { kind: 'connectionString', connectionString: connection },
    `Adds${tables}`,
  );
  return { index: new TableRequestIndex(client), client };
}

/** Every row of a table without the store's own columns, in key order. */
async function rowsOf(client: TableClient): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const row of client.listEntities()) {
    rows.push(
      Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'etag' && k !== 'timestamp')),
    );
  }
  return rows;
}

/** `count` requests received a minute apart, from the bulk queue. */
function entries(prefix: string, count: number): RequestIndexEntry[] {
  return Array.from({ length: count }, (_, i) =>
    indexEntry(`${prefix}-${i}`, i, { accountId: `user${i}`, source: 'queue' }),
  );
}

/** The same requests written one by one with `add`, as the HTTP path writes them. */
async function writtenAlone(list: RequestIndexEntry[]): Promise<Record<string, unknown>[]> {
  const { index, client } = freshIndex();
  for (const entry of list) await index.add(entry);
  return rowsOf(client);
}

/** Storage calls while `run` runs: entity group transactions and single-row creates. */
async function callsOf(run: () => Promise<unknown>): Promise<{ batches: number; creates: number }> {
  const calls = countStorageCalls(connectionString);
  try {
    await run();
  } finally {
    calls.stop();
  }
  const byKind = calls.counts.byKind;
  const creates = Object.entries(byKind)
    .filter(([kind]) => /^table POST Adds\d+$/.test(kind))
    .reduce((sum, [, n]) => sum + n, 0);
  return { batches: byKind['table POST $batch'] ?? 0, creates };
}

/**
 * A loopback proxy in the table endpoint's place: it forwards every call to Azurite, and may
 * lose the answer of the first transaction (the rows are written; the caller's socket is
 * closed instead of answered) or take the failed action's index out of refusals' messages
 * (as a store that does not name it).
 */
async function proxy(mode: 'lose first batch answer' | 'refusals without index') {
  const target = new URL(/TableEndpoint=([^;]+)/.exec(connectionString)![1]!);
  let lost = false;
  const server: Server = createServer((inbound, outbound) => {
    const batch = inbound.url?.endsWith('/$batch') === true;
    const upstream = forward(
      {
        host: target.hostname,
        port: target.port,
        method: inbound.method,
        path: inbound.url,
        headers: inbound.headers,
      },
      (answer) => {
        if (batch && mode === 'lose first batch answer' && !lost) {
          lost = true;
          answer.resume();
          answer.on('end', () => inbound.socket.destroy());
          return;
        }
        if (!batch || mode !== 'refusals without index' || answer.statusCode! < 300) {
          outbound.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(outbound);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks)
            .toString('utf8')
            .replace(/"value":"\d+:/g, '"value":"');
          const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
          outbound.writeHead(answer.statusCode!, headers);
          outbound.end(body);
        });
      },
    );
    inbound.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    lostAnswers: () => (lost ? 1 : 0),
    connectionString: connectionString.replace(
      /TableEndpoint=http:\/\/[^/]+/,
      `TableEndpoint=http://127.0.0.1:${port}`,
    ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('TableRequestIndex: adds of bulk requests and ends, in shared transactions', () => {
  it('writes the rows of requests added at once in one transaction, as add writes them one by one', async () => {
    const list = entries('together', 20);
    const { index, client } = freshIndex();
    await index.add(indexEntry('warm-up', 59));
    const calls = await callsOf(() => Promise.all(list.map((entry) => index.addTogether(entry))));

    expect(calls).toEqual({ batches: 1, creates: 0 });
    const rows = (await rowsOf(client)).filter((row) => row.requestId !== 'warm-up');
    expect(rows).toHaveLength(60);
    expect(rows).toEqual(await writtenAlone(list));
    expect(idsOf(await index.query({ limit: 200 }))).toEqual([
      'warm-up',
      ...list.map((e) => e.requestId).reverse(),
    ]);
  });

  it('keeps a transaction within 100 rows: 40 requests in 2', async () => {
    const list = entries('many', 40);
    const { index, client } = freshIndex();
    await index.add(indexEntry('warm-up', 59));
    const calls = await callsOf(() => Promise.all(list.map((entry) => index.addTogether(entry))));

    expect(calls).toEqual({ batches: 2, creates: 0 });
    expect((await rowsOf(client)).filter((row) => row.requestId !== 'warm-up')).toEqual(
      await writtenAlone(list),
    );
  });

  it('a request whose rows exist (a redelivered message) fails none of the others, and keeps its end', async () => {
    const list = entries('redelivered', 10);
    const { index, client } = freshIndex();
    const again = list[4]!;
    await index.add(again);
    await index.recordEnd({
      ...again,
      status: 'succeeded',
      finishedAt: '2026-11-22T09:00:00.000Z',
    });
    const ended = (await rowsOf(client)).filter((row) => row.requestId === again.requestId);

    const calls = await callsOf(() => Promise.all(list.map((entry) => index.addTogether(entry))));

    // The refused transaction, the other nine's, the redelivered one's alone (refused too)
    // and its three rows one by one, each found to exist.
    expect(calls).toEqual({ batches: 3, creates: 3 });
    const rows = await rowsOf(client);
    expect(rows.filter((row) => row.requestId === again.requestId)).toEqual(ended);
    const page = await index.query({ limit: 200 });
    expect(idsOf(page)).toEqual(list.map((e) => e.requestId).reverse());
    expect(page.entries.find((e) => e.requestId === again.requestId)?.status).toBe('succeeded');
    const others = list.filter((entry) => entry !== again);
    expect(rows.filter((row) => row.requestId !== again.requestId)).toEqual(
      await writtenAlone(others),
    );
  });

  it('writes every request once when a transaction is refused without naming the action', async () => {
    const list = entries('unnamed', 8);
    const refusing = await proxy('refusals without index');
    try {
      const { index, client } = freshIndex(refusing.connectionString);
      await index.add(list[6]!);
      await Promise.all(list.map((entry) => index.addTogether(entry)));

      expect(idsOf(await index.query({ limit: 200 }))).toEqual(
        list.map((e) => e.requestId).reverse(),
      );
      expect(await rowsOf(client)).toEqual(await writtenAlone(list));
    } finally {
      await refusing.close();
    }
  });

  it('an answer lost mid-transaction: the client sends it again, and every request is listed once', async () => {
    const list = entries('lost', 6);
    const losing = await proxy('lose first batch answer');
    try {
      // Its first transaction is theirs: the table is created by a call of another kind.
      const { index, client } = freshIndex(losing.connectionString);
      await Promise.all(list.map((entry) => index.addTogether(entry)));

      expect(losing.lostAnswers()).toBe(1);
      expect(idsOf(await index.query({ limit: 200 }))).toEqual(
        list.map((e) => e.requestId).reverse(),
      );
      expect(await rowsOf(client)).toEqual(await writtenAlone(list));
    } finally {
      await losing.close();
    }
  });

  it('writes the ends of requests that end together in one transaction; an end written before answers false, alone', async () => {
    const list = entries('ends', 10);
    const { index, client } = freshIndex();
    for (const entry of list) await index.add(entry);
    const ended = (entry: RequestIndexEntry): RequestIndexEntry => ({
      ...entry,
      status: 'succeeded',
      finishedAt: '2026-11-22T09:00:00.000Z',
    });
    expect(await index.recordEnd(ended(list[3]!))).toBe(true);

    let answers: boolean[] = [];
    const calls = await callsOf(async () => {
      answers = await Promise.all(list.map((entry) => index.recordEnd(ended(entry))));
    });

    // The refused transaction, the other nine's, and the one ended before, alone (refused).
    expect(calls).toEqual({ batches: 3, creates: 0 });
    expect(answers).toEqual(list.map((_, i) => i !== 3));
    const page = await index.query({ limit: 200 });
    expect(page.entries.map((e) => e.status)).toEqual(list.map(() => 'succeeded'));
    const alone = freshIndex();
    for (const entry of list) {
      await alone.index.add(entry);
      await alone.index.recordEnd(ended(entry));
    }
    // The same rows as ends written one by one, but for the marker's writer (one per call).
    const withoutWriter = (rows: Record<string, unknown>[]) =>
      rows.map(({ endedBy, ...row }) => ({ ...row, endedBy: typeof endedBy }));
    expect(withoutWriter(await rowsOf(client))).toEqual(withoutWriter(await rowsOf(alone.client)));
  });

  it("keeps a request's add and end apart when they come at once: the end stands", async () => {
    const [entry] = entries('add-and-end', 1);
    const { index } = freshIndex();
    await index.add(indexEntry('warm-up', 59));
    const end = { ...entry!, status: 'failed' as const, finishedAt: '2026-11-22T09:00:00.000Z' };

    const [, endedHere] = await Promise.all([index.addTogether(entry!), index.recordEnd(end)]);

    expect(endedHere).toBe(true);
    expect((await index.query({ limit: 200 })).entries).toEqual([
      expect.objectContaining({ requestId: 'warm-up' }),
      end,
    ]);
  });

  it('ends whose answer was lost and which the client sent again answer true, once', async () => {
    const list = entries('lost-ends', 5);
    const { index: direct, client } = freshIndex();
    for (const entry of list) await direct.add(entry);
    const losing = await proxy('lose first batch answer');
    try {
      const through = new TableRequestIndex(
        tableClient(
          { kind: 'connectionString', connectionString: losing.connectionString },
          client.tableName,
        ),
      );
      const ended = (entry: RequestIndexEntry): RequestIndexEntry => ({
        ...entry,
        status: 'failed',
        finishedAt: '2026-11-22T09:00:00.000Z',
      });

      const answers = await Promise.all(list.map((entry) => through.recordEnd(ended(entry))));

      expect(losing.lostAnswers()).toBe(1);
      // Each end was written by this run: each is counted, once.
      expect(answers).toEqual(list.map(() => true));
      expect(await through.recordEnd(ended(list[0]!))).toBe(false);
      expect((await direct.query({ limit: 200 })).entries).toEqual(list.map(ended).reverse());
    } finally {
      await losing.close();
    }
  });
});
