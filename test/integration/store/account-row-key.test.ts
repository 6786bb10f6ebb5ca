import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalEntryKey } from '../../../src/domain/journal-entry';
import { accountRowKeys } from '../../../src/store/account-row';
import { tableClient } from '../../../src/store/storage-clients';
import { TableAccountState } from '../../../src/store/table-account-state';
import { TableJournalStore } from '../../../src/store/table-journal-store';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/**
 * Account rows keyed by the connector's canonical form of the ID (here: lower case, as
 * SCIM's userName), and the rows written before under the ID as a request gave it.
 */
let storage: TestStorage;
let client: TableClient;
/** The store as it was: rows under the ID itself. */
let before: TableAccountState;
let accounts: TableAccountState;

beforeAll(async () => {
  storage = await startTestStorage();
  client = tableClient(storage.connection, 'Journal');
  before = new TableAccountState(client);
  accounts = new TableAccountState(client, (_connector, accountId) => accountId.toLowerCase());
});
afterAll(() => storage.close());

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const TTL = 60_000;
const AT = '2026-06-01T12:00:05.000Z';

async function rowExists(connector: string, key: string): Promise<boolean> {
  const keys = accountRowKeys(connector, key);
  try {
    await client.getEntity(keys.partitionKey, keys.rowKey);
    return true;
  } catch {
    return false;
  }
}

describe('TableAccountState: one row per account, whatever form of its ID a request gives', () => {
  it('refuses "ada" while "Ada" holds the lease, and gives both the same record', async () => {
    const taken = await accounts.acquire('keys', 'Ada', 'req-1', NOW, TTL, true);
    expect(taken.acquired).toBe(true);
    expect(await accounts.acquire('keys', 'ada', 'req-2', NOW + 1_000, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-1',
    });
    await accounts.commitStep({
      connector: 'keys',
      accountId: 'Ada',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: taken.etag!,
      stored: null,
      entries: [],
      update: { link: { targetId: 'u-ada', linkedAt: AT }, granted: ['g-1'], groupsAt: AT },
      release: true,
    });
    const next = await accounts.acquire('keys', 'ADA', 'req-2', NOW + 2_000, TTL);
    expect(next).toMatchObject({
      acquired: true,
      record: { accountId: 'Ada', targetId: 'u-ada', assignedGroups: ['g-1'] },
    });
    expect(await accounts.get('keys', 'ada')).toEqual(next.record);
    expect(await rowExists('keys', 'ada')).toBe(true);
    expect(await rowExists('keys', 'Ada')).toBe(false);
  });

  it('finds a record stored under the ID as given, and moves it under the canonical key with the lease', async () => {
    await before.put({
      connector: 'keys',
      accountId: 'Grace',
      targetId: 'u-grace',
      linkedAt: AT,
      assignedGroups: ['g-1', 'g-2'],
    });
    expect(await accounts.get('keys', 'Grace')).toMatchObject({
      accountId: 'Grace',
      targetId: 'u-grace',
      assignedGroups: ['g-1', 'g-2'],
    });

    const taken = await accounts.acquire('keys', 'Grace', 'req-1', NOW, TTL, true);
    expect(taken).toMatchObject({ acquired: true, record: { targetId: 'u-grace' } });
    expect(await rowExists('keys', 'grace')).toBe(true);
    expect(await rowExists('keys', 'Grace')).toBe(false);
    // Moved: another form of the ID now meets the lease.
    expect(await accounts.acquire('keys', 'GRACE', 'req-2', NOW + 1_000, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-1',
    });
    const linked = [];
    for await (const record of accounts.listLinked('keys')) {
      if (record.targetId === 'u-grace') linked.push(record);
    }
    expect(linked).toHaveLength(1);
  });

  it('leaves a row under the ID as given to the holder of its live lease', async () => {
    const held = await before.acquire('keys', 'Hopper', 'req-old', NOW, TTL);
    expect(held.acquired).toBe(true);
    expect(await accounts.acquire('keys', 'Hopper', 'req-new', NOW + 1_000, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-old',
    });
    expect(await rowExists('keys', 'hopper')).toBe(false);
    // Once that lease ends, the row moves with the next lease.
    const later = await accounts.acquire('keys', 'Hopper', 'req-new', NOW + TTL + 1, TTL);
    expect(later.acquired).toBe(true);
    expect(await rowExists('keys', 'hopper')).toBe(true);
    expect(await rowExists('keys', 'Hopper')).toBe(false);
  });
  it('writes the step of a request whose lease was taken under the ID as given, before this version', async () => {
    // Taken by the earlier version: the row, its lease and the request's ETag under "Lovelace".
    const held = await before.acquire('keys', 'Lovelace', 'req-inflight', NOW, TTL, true);
    expect(held.acquired).toBe(true);
    const committed = await accounts.commitStep({
      connector: 'keys',
      accountId: 'Lovelace',
      owner: 'req-inflight',
      leaseExpiresAtMs: NOW + TTL,
      etag: held.etag!,
      stored: null,
      entries: [
        {
          key: journalEntryKey('req-inflight', 0, 'account created'),
          connector: 'keys',
          accountId: 'Lovelace',
          requestId: 'req-inflight',
          step: 0,
          change: 'account created',
          at: AT,
        },
      ],
      update: { link: { targetId: 'u-lovelace', linkedAt: AT, createdAt: AT } },
      release: false,
    });
    expect(committed.record).toMatchObject({ targetId: 'u-lovelace' });
    const journal = await new TableJournalStore(client).query({
      connector: 'keys',
      accountId: 'Lovelace',
    });
    expect(journal.entries.map((entry) => entry.change)).toEqual(['account created']);
    expect(await accounts.get('keys', 'Lovelace')).toMatchObject({ targetId: 'u-lovelace' });
    // Its release frees the row it took; the next lease moves it under the canonical key.
    await accounts.release('keys', 'Lovelace', 'req-inflight');
    const again = await accounts.acquire('keys', 'Lovelace', 'req-next', NOW + 1_000, TTL);
    expect(again).toMatchObject({ acquired: true, record: { targetId: 'u-lovelace' } });
  });
});
