import { randomUUID } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProvisioningError } from '../../../src/domain/errors';
import { accountRowKeys, MAX_PROPERTY_CHARS } from '../../../src/store/account-row';
import { tableClient } from '../../../src/store/storage-clients';
import { TableAccountState } from '../../../src/store/table-account-state';
import { TableJournalStore } from '../../../src/store/table-journal-store';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { grantedEntries } from '../../support/granted-entries';

/**
 * An account with many groups: Table Storage holds 64 KiB in a string property (Azurite
 * refuses more, PropertyValueTooLarge) and 1 MiB in an entity (Azurite does not check it).
 * The record must still be written, and a step's journal entries never lost with it.
 */
let storage: TestStorage;
let client: TableClient;
let accounts: TableAccountState;
let journal: TableJournalStore;

beforeAll(async () => {
  storage = await startTestStorage();
  client = tableClient(storage.connection, 'Journal');
  accounts = new TableAccountState(client);
  journal = new TableJournalStore(client);
});
afterAll(() => storage.close());

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const TTL = 60_000;
const AT = '2026-06-01T12:00:05.000Z';
const groupIds = (count: number) => Array.from({ length: count }, () => randomUUID());

const entries = (connector: string, accountId: string, step: number, groups: string[]) =>
  grantedEntries(connector, accountId, step, groups, AT);

/** Takes the lease and links the account: the state a membership step commits onto. */
async function linked(connector: string, accountId: string) {
  const taken = await accounts.acquire(connector, accountId, 'req-1', NOW, TTL, true);
  expect(taken.acquired).toBe(true);
  return accounts.commitStep({
    connector,
    accountId,
    owner: 'req-1',
    leaseExpiresAtMs: NOW + TTL,
    etag: taken.etag!,
    stored: null,
    entries: [],
    update: { link: { targetId: `u-${accountId}`, linkedAt: AT } },
    release: false,
  });
}

async function journalGroups(connector: string, accountId: string): Promise<string[]> {
  const page = await journal.query({ connector, accountId, limit: 1000 });
  return page.entries.map((entry) => entry.groupId ?? '').sort();
}

describe('TableAccountState: a record past 64 KiB', () => {
  it('writes 900 groups with the step that granted them, and reads them back whole', async () => {
    const groups = groupIds(900);
    const first = await linked('large', 'many.groups');
    const step = await accounts.commitStep({
      connector: 'large',
      accountId: 'many.groups',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: first.etag!,
      stored: first.record,
      entries: entries('large', 'many.groups', 1, groups.slice(0, 60)),
      update: { granted: groups, groupsAt: AT },
      release: true,
    });
    expect(step.record?.assignedGroups).toHaveLength(900);

    const record = await accounts.get('large', 'many.groups');
    expect(new Set(record?.assignedGroups)).toEqual(new Set(groups));
    expect(Object.keys(record?.groupWrites ?? {})).toHaveLength(900);
    expect(await journalGroups('large', 'many.groups')).toEqual(groups.slice(0, 60).sort());
    // As stored: no string property holds more than Table Storage takes.
    const keys = accountRowKeys('large', 'many.groups');
    const row = await client.getEntity<Record<string, unknown>>(keys.partitionKey, keys.rowKey);
    const strings = Object.values(row).filter((value) => typeof value === 'string');
    expect(Math.max(...strings.map((value) => value.length))).toBeLessThanOrEqual(
      MAX_PROPERTY_CHARS,
    );
    expect(row['assignedGroupsParts']).toBeGreaterThan(1);
  });

  it('writes a large record under a lost version too, and shrinks it again', async () => {
    const groups = groupIds(1_000);
    await linked('large', 'stale.version');
    // No version known (the lease was renewed elsewhere): the row is read and written back.
    await accounts.commitStep({
      connector: 'large',
      accountId: 'stale.version',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      entries: entries('large', 'stale.version', 1, groups.slice(0, 5)),
      update: { granted: groups, groupsAt: AT },
      release: false,
    });
    expect((await accounts.get('large', 'stale.version'))?.assignedGroups).toHaveLength(1_000);
    await accounts.commitStep({
      connector: 'large',
      accountId: 'stale.version',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      entries: [],
      update: { revoked: groups.slice(2), groupsAt: AT },
      release: true,
    });
    const record = await accounts.get('large', 'stale.version');
    expect(new Set(record?.assignedGroups)).toEqual(new Set(groups.slice(0, 2)));
    expect(await journalGroups('large', 'stale.version')).toEqual(groups.slice(0, 5).sort());
  });

  it('reads a short record put over a long one as the short one (a merged row)', async () => {
    const record = { connector: 'large', accountId: 'merged', targetId: 'u-m', linkedAt: AT };
    await accounts.put({ ...record, assignedGroups: groupIds(1_200) });
    await accounts.put({ ...record, assignedGroups: ['g-only'] });
    expect((await accounts.get('large', 'merged'))?.assignedGroups).toEqual(['g-only']);
  });

  it('reads a record stored in one property per column, as rows were written before', async () => {
    const keys = accountRowKeys('large', 'old.layout');
    await client.createEntity({
      ...keys,
      targetId: 'u-old',
      linkedAt: AT,
      assignedGroups: JSON.stringify(['g-1', 'g-2']),
      groupWrites: JSON.stringify({ 'g-1': { member: true, at: AT } }),
    });
    expect(await accounts.get('large', 'old.layout')).toMatchObject({
      accountId: 'old.layout',
      targetId: 'u-old',
      assignedGroups: ['g-1', 'g-2'],
      groupWrites: { 'g-1': { member: true, at: AT } },
    });
  });

  it('writes the journal entries and names the account when the record passes 1 MiB', async () => {
    const groups = groupIds(7_000);
    const first = await linked('large', 'too.large');
    const failure = await accounts
      .commitStep({
        connector: 'large',
        accountId: 'too.large',
        owner: 'req-1',
        leaseExpiresAtMs: NOW + TTL,
        etag: first.etag!,
        stored: first.record,
        entries: entries('large', 'too.large', 1, groups.slice(0, 40)),
        update: { granted: groups, groupsAt: AT },
        release: true,
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isProvisioningError(failure) && failure.code).toBe('ACCOUNT_RECORD_TOO_LARGE');
    expect((failure as Error).message).toContain('account "too.large" on connector "large"');
    // Nothing of what the target changed is lost: the entries are there, the record as it was.
    expect(await journalGroups('large', 'too.large')).toEqual(groups.slice(0, 40).sort());
    expect((await accounts.get('large', 'too.large'))?.assignedGroups).toEqual([]);
  });
});
