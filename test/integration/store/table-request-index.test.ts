import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { TableRequestIndex } from '../../../src/store/table-request-index';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { idsOf, indexEntry } from '../../support/request-index-entries';

let storage: TestStorage;
let index: TableRequestIndex;

beforeAll(async () => {
  storage = await startTestStorage();
  index = new TableRequestIndex(tableClient(storage.connection, 'RequestIndex'));
});
afterAll(() => storage.close());

describe('TableRequestIndex', () => {
  beforeAll(async () => {
    await index.add(indexEntry('r1', 1));
    await index.add(
      indexEntry('r2', 2, {
        connector: 'entra',
        accountId: 'jane@contoso.com',
        requestedBy: 'ada@contoso.com',
        reason: 'joiner, "Sales"',
        correlationId: 'CHG-1042',
      }),
    );
    await index.add(indexEntry('r3', 3, { accountId: 'john/doe#1' }));
    await index.add(indexEntry('r4', 4, { connector: 'entra', accountId: 'jane.doe' }));
    await index.recordEnd(
      indexEntry('r1', 1, { status: 'succeeded', finishedAt: '2026-11-22T08:01:09Z' }),
    );
    await index.recordEnd(indexEntry('r3', 3, { accountId: 'john/doe#1', status: 'failed' }));
  });

  it('lists newest first, each request once, with its end once written', async () => {
    const page = await index.query({});
    expect(idsOf(page)).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(page.entries.find((e) => e.requestId === 'r1')).toEqual(
      indexEntry('r1', 1, { status: 'succeeded', finishedAt: '2026-11-22T08:01:09Z' }),
    );
    expect(page.entries.find((e) => e.requestId === 'r2')).toMatchObject({
      requestedBy: 'ada@contoso.com',
      reason: 'joiner, "Sales"',
      correlationId: 'CHG-1042',
    });
    expect(page.entries.find((e) => e.requestId === 'r1')).not.toHaveProperty('requestedBy');
  });

  it('keeps the end when the submission write comes after it (a retried submission)', async () => {
    await index.add(indexEntry('r1', 1));
    await index.recordEnd(indexEntry('r3', 3, { accountId: 'john/doe#1', status: 'failed' }));
    const page = await index.query({});
    expect(idsOf(page)).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(page.entries.map((e) => e.status)).toEqual([
      'pending',
      'failed',
      'pending',
      'succeeded',
    ]);
  });

  it('filters by connector, by account (any connector, or one), and by stored status', async () => {
    expect(idsOf(await index.query({ connector: 'entra' }))).toEqual(['r4', 'r2']);
    expect(idsOf(await index.query({ accountId: 'jane.doe' }))).toEqual(['r4', 'r1']);
    expect(idsOf(await index.query({ accountId: 'jane.doe', connector: 'hr-app' }))).toEqual([
      'r1',
    ]);
    expect(idsOf(await index.query({ accountId: 'john/doe#1' }))).toEqual(['r3']);
    expect(idsOf(await index.query({ statuses: ['failed', 'pending'] }))).toEqual([
      'r4',
      'r3',
      'r2',
    ]);
    expect(idsOf(await index.query({ connector: "it's", statuses: ['succeeded'] }))).toEqual([]);
  });

  it('pages with a token a caller can put in a URL, and refuses one that is not its own', async () => {
    const first = await index.query({ limit: 3 });
    expect(idsOf(first)).toEqual(['r4', 'r3', 'r2']);
    expect(first.continuationToken).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await index.query({ limit: 3, continuationToken: first.continuationToken! });
    expect(idsOf(second)).toEqual(['r1']);
    expect(second.continuationToken).toBeUndefined();
    await expect(index.query({ continuationToken: 'bm90LWEtdG9rZW4' })).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
      object: 'continuationToken',
    });
    await expect(index.query({ limit: 500 })).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
  });
});
