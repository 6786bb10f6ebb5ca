import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/domain/logger';
import { tableClient } from '../../../src/store/storage-clients';
import { TableRoleCatalogue } from '../../../src/store/table-role-catalogue';
import {
  IMPORT_LEASE_MS,
  ImportLeaseKeeper,
} from '../../../src/workflows/activities/import-lease-keeper';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { until } from '../../support/poll-until';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/*
 * A catalogue import marks roles gone only while it holds the connector's import lease,
 * unexpired, up to the write itself; and a running import keeps its lease even while one of
 * its calls waits longer than the lease lasts. Judged by the stored rows in Azurite.
 */
let storage: TestStorage;
beforeAll(async () => {
  storage = await startTestStorage();
});
afterAll(() => storage.close());

const T1 = '2025-04-01T08:00:00.000Z';
const T2 = '2025-04-02T08:00:00.000Z';
const MINUTE = 60_000;

/** A catalogue whose table client runs `onLeaseRead` once, right after the next read of a lease row. */
function catalogueWithHook(table: string): {
  catalogue: TableRoleCatalogue;
  afterNextLeaseRead: (hook: () => Promise<void>) => void;
} {
  const client: TableClient = tableClient(storage.connection, table);
  let hook: (() => Promise<void>) | undefined;
  const getEntity = client.getEntity.bind(client);
  client.getEntity = (async (partitionKey: string, rowKey: string, options?: object) => {
    const row = await getEntity(partitionKey, rowKey, options);
    const isLease = `${partitionKey}/${rowKey}`.includes('import-lease');
    if (isLease && hook !== undefined) {
      const run = hook;
      hook = undefined;
      await run();
    }
    return row;
  }) as TableClient['getEntity'];
  return {
    catalogue: new TableRoleCatalogue(client),
    afterNextLeaseRead: (next) => {
      hook = next;
    },
  };
}

async function seed(catalogue: TableRoleCatalogue, connector: string): Promise<void> {
  await catalogue.applyImportPage(
    connector,
    [
      { id: 'r1', displayName: 'Role 1' },
      { id: 'r2', displayName: 'Role 2' },
    ],
    { overwriteExisting: false, jobId: 'job-0', at: T1 },
  );
}

describe('marking roles gone under the import lease', () => {
  it('a job whose own lease expired marks nothing, though no other job took it', async () => {
    const catalogue = new TableRoleCatalogue(tableClient(storage.connection, 'LeaseExpiry'));
    await seed(catalogue, 'exp');
    expect(
      await catalogue.claimImport('exp', { jobId: 'job-a', nowMs: 0, ttlMs: 10 * MINUTE }),
    ).toEqual({ held: true });

    await expect(
      catalogue.markRemoved(
        'exp',
        ['r1'],
        { jobId: 'job-a', at: T2 },
        {
          nowMs: 11 * MINUTE,
          ttlMs: 10 * MINUTE,
        },
      ),
    ).rejects.toMatchObject({ code: 'IMPORT_ALREADY_RUNNING' });
    expect((await catalogue.get('exp', 'r1'))?.status).toBe('present');
    // Held and unexpired, the same marking goes through and renews the lease.
    expect(
      await catalogue.markRemoved(
        'exp',
        ['r1'],
        { jobId: 'job-a', at: T2 },
        {
          nowMs: 9 * MINUTE,
          ttlMs: 10 * MINUTE,
        },
      ),
    ).toBe(1);
    expect((await catalogue.get('exp', 'r1'))?.status).toBe('gone');
    expect((await catalogue.importLease('exp'))?.expiresAt).toBe(
      new Date(19 * MINUTE).toISOString(),
    );
  });

  it('a lease taken over between its check and the write marks nothing', async () => {
    const { catalogue, afterNextLeaseRead } = catalogueWithHook('LeaseTakeover');
    const rival = new TableRoleCatalogue(tableClient(storage.connection, 'LeaseTakeover'));
    await seed(catalogue, 'take');
    expect(
      await catalogue.claimImport('take', { jobId: 'job-a', nowMs: 0, ttlMs: 10 * MINUTE }),
    ).toEqual({ held: true });
    // Right after job-a's marking has read its lease, the API takes it over (Durable reported
    // job-a ended, while an earlier run of its activity still goes on).
    afterNextLeaseRead(async () => {
      const taken = await rival.claimImport('take', {
        jobId: 'job-b',
        nowMs: MINUTE,
        ttlMs: 10 * MINUTE,
        replacing: 'job-a',
      });
      expect(taken).toEqual({ held: true });
    });

    await expect(
      catalogue.markRemoved(
        'take',
        ['r1', 'r2'],
        { jobId: 'job-a', at: T2 },
        {
          nowMs: MINUTE,
          ttlMs: 10 * MINUTE,
        },
      ),
    ).rejects.toMatchObject({ code: 'IMPORT_ALREADY_RUNNING' });
    expect((await rival.get('take', 'r1'))?.status).toBe('present');
    expect((await rival.get('take', 'r2'))?.status).toBe('present');
    expect((await rival.importLease('take'))?.jobId).toBe('job-b');
    // The lease row is no role.
    expect((await rival.list('take', { includeGone: true })).map((r) => r.groupId)).toEqual([
      'r1',
      'r2',
    ]);
  });
});

describe('a running import keeps its lease', () => {
  it('renews it while one call waits longer than the lease lasts, so no other job can take it', async () => {
    const catalogue = new TableRoleCatalogue(tableClient(storage.connection, 'LeaseRenewal'));
    let nowMs = 0;
    const services = {
      catalogue,
      logger: silentLogger,
      now: () => nowMs,
    } as unknown as WorkflowServices;
    const keeper = new ImportLeaseKeeper(services, 'renew', 'job-a', 20);
    await keeper.take();
    try {
      // The job waits on one call (a throttled page read) for most of the lease and beyond,
      // calling nothing of the keeper meanwhile.
      nowMs = IMPORT_LEASE_MS - MINUTE;
      await until('the lease renewed on the timer', async () => {
        const lease = await catalogue.importLease('renew');
        return lease !== undefined && Date.parse(lease.expiresAt) > IMPORT_LEASE_MS
          ? lease
          : undefined;
      });
      nowMs = IMPORT_LEASE_MS + MINUTE;
      const rival = await catalogue.claimImport('renew', {
        jobId: 'job-b',
        nowMs,
        ttlMs: IMPORT_LEASE_MS,
      });
      expect(rival).toMatchObject({ held: false, holder: { jobId: 'job-a' } });
    } finally {
      await keeper.release();
    }
    expect(await catalogue.importLease('renew')).toBeUndefined();
  });
});
