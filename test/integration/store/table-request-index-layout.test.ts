import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestIndexEntry } from '../../../src/store/request-index';
import { tableClient } from '../../../src/store/storage-clients';
import { TableRequestIndex } from '../../../src/store/table-request-index';
import { countStorageCalls } from '../../bench/storage-calls';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { idsOf, indexEntry } from '../../support/request-index-entries';

/** The requests of the two layouts, newest first. */
const NEWEST_FIRST = ['new-2', 'new-1', 'old-4', 'old-3', 'old-2', 'old-1'];

let storage: TestStorage;
let client: TableClient;
let index: TableRequestIndex;

beforeAll(async () => {
  storage = await startTestStorage();
  client = tableClient(storage.connection, 'RequestIndexLayout');
  index = new TableRequestIndex(client);
});
afterAll(() => storage.close());

/** A row as the earlier layout wrote it: one per partition, RowKey `<13 digits>_<requestId>`. */
async function seedLegacy(e: RequestIndexEntry): Promise<void> {
  const rowKey = `${String(9_999_999_999_999 - Date.parse(e.receivedAt)).padStart(13, '0')}_${e.requestId}`;
  const row = { ...e, actions: e.actions.join(',') };
  for (const partitionKey of ['all', `connector:${e.connector}`, `account:${e.accountId}`]) {
    await client.upsertEntity({ partitionKey, rowKey, ...row }, 'Replace');
  }
}

/** Every page of a query, one after another, as a caller reads them. */
async function readAll(query: Parameters<TableRequestIndex['query']>[0]) {
  const pages: string[][] = [];
  let continuationToken: string | undefined;
  do {
    const page = await index.query({
      ...query,
      ...(continuationToken ? { continuationToken } : {}),
    });
    pages.push(idsOf(page));
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined && pages.length < 20);
  return pages;
}

describe('TableRequestIndex in one partition', () => {
  it('writes a request in one storage call at submission and one at its end', async () => {
    await index.query({ limit: 1 }); // the table exists from here on
    const calls = countStorageCalls(
      (storage.connection as { connectionString: string }).connectionString,
    );
    try {
      await index.add(indexEntry('once', 1, { connector: 'once-app', accountId: 'once' }));
      await index.recordEnd(
        indexEntry('once', 1, { connector: 'once-app', accountId: 'once', status: 'succeeded' }),
      );
      expect(calls.counts.byKind).toEqual({ 'table POST $batch': 2 });
    } finally {
      calls.stop();
    }
    for (const query of [{}, { connector: 'once-app' }, { accountId: 'once' }]) {
      const [found] = (await index.query(query)).entries.filter((e) => e.requestId === 'once');
      expect(found).toMatchObject({ status: 'succeeded' });
    }
  });

  it('keeps the end when it was written before the submission, and a repeated submission adds nothing', async () => {
    const ended = indexEntry('early-end', 2, {
      connector: 'race-app',
      accountId: 'race',
      status: 'failed',
      finishedAt: '2026-11-22T08:02:30Z',
    });
    await index.recordEnd(ended);
    await index.add(indexEntry('early-end', 2, { connector: 'race-app', accountId: 'race' }));
    await index.add(indexEntry('late', 3, { connector: 'race-app', accountId: 'race' }));
    await index.add(indexEntry('late', 3, { connector: 'race-app', accountId: 'race' }));
    for (const query of [{ connector: 'race-app' }, { accountId: 'race' }]) {
      const page = await index.query(query);
      expect(page.entries).toEqual([
        indexEntry('late', 3, { connector: 'race-app', accountId: 'race' }),
        ended,
      ]);
    }
    expect((await index.query({})).entries.filter((e) => e.accountId === 'race')).toHaveLength(2);
  });

  it('lists one name only, not names that begin with it or contain the separator', async () => {
    await index.add(indexEntry('tilde-1', 4, { connector: 'x', accountId: 'jo' }));
    await index.add(indexEntry('tilde-2', 5, { connector: 'x~0', accountId: 'jo~9999' }));
    await index.add(indexEntry('tilde-3', 6, { connector: 'x0', accountId: 'jo0' }));
    expect(idsOf(await index.query({ connector: 'x' }))).toEqual(['tilde-1']);
    expect(idsOf(await index.query({ connector: 'x~0' }))).toEqual(['tilde-2']);
    expect(idsOf(await index.query({ accountId: 'jo' }))).toEqual(['tilde-1']);
    expect(idsOf(await index.query({ accountId: 'jo~9999' }))).toEqual(['tilde-2']);
  });

  it('pages one request at a time through names in any script, newest first', async () => {
    const connector = 'hr-ü/#?';
    const accounts = ['józef.ąę', '山田太郎', 'émile😀'];
    for (const [a, accountId] of accounts.entries()) {
      for (let i = 0; i < 3; i++) {
        await index.add(indexEntry(`script-${a}-${i}`, 30 + a * 3 + i, { connector, accountId }));
      }
    }
    const pages = async (query: { connector?: string; accountId?: string }) => {
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page = await index.query({
          ...query,
          limit: 1,
          ...(token === undefined ? {} : { continuationToken: token }),
        });
        seen.push(...idsOf(page));
        token = page.continuationToken;
      } while (token !== undefined);
      return seen;
    };
    for (const [a, accountId] of accounts.entries()) {
      expect(await pages({ accountId })).toEqual([2, 1, 0].map((i) => `script-${a}-${i}`));
    }
    expect(await pages({ connector })).toEqual(
      [8, 7, 6, 5, 4, 3, 2, 1, 0].map((n) => `script-${Math.floor(n / 3)}-${n % 3}`),
    );
  });
});

describe('TableRequestIndex with rows of the earlier layout', () => {
  beforeAll(async () => {
    // Written before the upgrade: old-1 ended, old-2 still running, old-3 on another connector.
    await seedLegacy(
      indexEntry('old-1', 10, { connector: 'hr', accountId: 'ann', status: 'succeeded' }),
    );
    await seedLegacy(indexEntry('old-2', 11, { connector: 'hr', accountId: 'ann' }));
    await seedLegacy(indexEntry('old-3', 12, { connector: 'crm', accountId: 'ann' }));
    await seedLegacy(indexEntry('old-4', 13, { connector: 'hr', accountId: 'ann' }));
    // After it: new-1 and new-2 submitted, and old-4 (in flight at the upgrade) ended.
    await index.add(indexEntry('new-1', 20, { connector: 'hr', accountId: 'ann' }));
    await index.add(indexEntry('new-2', 21, { connector: 'crm', accountId: 'ann' }));
    await index.recordEnd(
      indexEntry('old-4', 13, { connector: 'hr', accountId: 'ann', status: 'failed' }),
    );
  });

  it('lists the new rows, then the earlier ones, newest first and each request once', async () => {
    expect(idsOf(await index.query({ accountId: 'ann' }))).toEqual(NEWEST_FIRST);
    expect((await index.query({ connector: 'hr' })).entries).toEqual([
      indexEntry('new-1', 20, { connector: 'hr', accountId: 'ann' }),
      indexEntry('old-4', 13, { connector: 'hr', accountId: 'ann', status: 'failed' }),
      indexEntry('old-2', 11, { connector: 'hr', accountId: 'ann' }),
      indexEntry('old-1', 10, { connector: 'hr', accountId: 'ann', status: 'succeeded' }),
    ]);
    expect(idsOf(await index.query({ accountId: 'ann', connector: 'crm' }))).toEqual([
      'new-2',
      'old-3',
    ]);
    expect(idsOf(await index.query({ connector: 'hr', statuses: ['pending'] }))).toEqual([
      'new-1',
      'old-2',
    ]);
    expect(
      idsOf(await index.query({ accountId: 'ann', statuses: ['succeeded', 'failed'] })),
    ).toEqual(['old-4', 'old-1']);
  });

  it('pages across the two layouts with tokens that say where they stopped', async () => {
    expect(await readAll({ accountId: 'ann', limit: 2 })).toEqual([
      ['new-2', 'new-1'],
      ['old-4', 'old-3'],
      ['old-2', 'old-1'],
    ]);
    expect(await readAll({ accountId: 'ann', limit: 4 })).toEqual([
      ['new-2', 'new-1', 'old-4', 'old-3'],
      ['old-2', 'old-1'],
    ]);
    // A page that ends with the new rows: the next one begins the earlier layout.
    const first = await index.query({ connector: 'hr', limit: 2 });
    expect(idsOf(first)).toEqual(['new-1', 'old-4']);
    const second = await index.query({
      connector: 'hr',
      limit: 2,
      continuationToken: first.continuationToken!,
    });
    expect(idsOf(second)).toEqual(['old-2', 'old-1']);
    expect(second.continuationToken).toBeUndefined();
    // A token the earlier layout gave out: two rows into the account's partition.
    const legacyPage = await client
      .listEntities({ queryOptions: { filter: `PartitionKey eq 'account:ann'` } })
      .byPage({ maxPageSize: 2 })
      .next();
    const { continuationToken: sdkToken } = legacyPage.value as { continuationToken: string };
    const earlier = Buffer.from(sdkToken, 'base64').toString('base64url');
    const rest = await index.query({ accountId: 'ann', continuationToken: earlier });
    expect(idsOf(rest)).toEqual(['old-2', 'old-1']);
  });

  it('leaves the all-requests list as it was', async () => {
    expect(idsOf(await index.query({})).filter((id) => /^(old|new)-/.test(id))).toEqual(
      NEWEST_FIRST,
    );
  });
});

describe('TableRequestIndex reading many requests of the earlier layout', () => {
  const pending = Array.from({ length: 8 }, (_, i) =>
    indexEntry(`bulk-${i}`, 40 + i, { connector: 'bulk-app', accountId: 'bo' }),
  );
  const ended = new Set(['bulk-1', 'bulk-2', 'bulk-4', 'bulk-6', 'bulk-7']);

  beforeAll(async () => {
    for (const entry of pending) await seedLegacy(entry);
    for (const entry of pending) {
      if (ended.has(entry.requestId)) await index.recordEnd({ ...entry, status: 'succeeded' });
    }
  });

  it('checks which of a page of them ended since in one read, listing each request once', async () => {
    const newestFirst = [...pending].reverse();
    for (const query of [{ connector: 'bulk-app' }, { accountId: 'bo' }]) {
      const calls = countStorageCalls(
        (storage.connection as { connectionString: string }).connectionString,
      );
      try {
        const page = await index.query(query);
        expect(page.entries).toEqual([
          ...newestFirst
            .filter((e) => ended.has(e.requestId))
            .map((e) => ({
              ...e,
              status: 'succeeded',
            })),
          ...newestFirst.filter((e) => !ended.has(e.requestId)),
        ]);
        // The new range, the earlier layout's partition, and one read of which of its
        // pending rows have rows in the new range: not one read per row.
        expect(calls.counts.table).toBe(3);
      } finally {
        calls.stop();
      }
    }
  });
});
