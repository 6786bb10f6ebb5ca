import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import { foundLaterEntries, type LostWrite } from '../../../src/domain/lost-writes';
import { tableClient } from '../../../src/store/storage-clients';
import { TableAccountState } from '../../../src/store/table-account-state';
import { TableJournalStore } from '../../../src/store/table-journal-store';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { grantedEntries } from '../../support/granted-entries';

let storage: TestStorage;
let accounts: TableAccountState;
let journal: TableJournalStore;

beforeAll(async () => {
  storage = await startTestStorage();
  const client = tableClient(storage.connection, 'Journal');
  accounts = new TableAccountState(client);
  journal = new TableJournalStore(client);
});
afterAll(() => storage.close());

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const TTL = 60_000;
const AT = '2025-06-01T12:00:05.000Z';

const entries = (connector: string, accountId: string, step: number, groups: string[]) =>
  grantedEntries(connector, accountId, step, groups, AT);

describe('TableAccountState: the lease (DESIGN invariant 7)', () => {
  it('lets exactly one of ten concurrent owners take a free lease', async () => {
    const owners = Array.from({ length: 10 }, (_, index) => `owner-${index}`);
    const results = await Promise.all(
      owners.map((owner, i) => accounts.acquire('race', 'a/b#c?d', owner, NOW, TTL, i % 2 === 0)),
    );
    const winners = owners.filter((_, index) => results[index]!.acquired);
    expect(winners).toHaveLength(1);
    for (const result of results.filter((found) => !found.acquired)) {
      expect(result).toEqual({
        acquired: false,
        holder: winners[0],
        expiresAt: '2025-06-01T12:01:00.000Z',
      });
    }
  });

  it('lets exactly one of ten concurrent owners take over an expired lease', async () => {
    await accounts.acquire('race-expired', 'jdoe', 'old', NOW, TTL);
    const owners = Array.from({ length: 10 }, (_, index) => `owner-${index}`);
    const results = await Promise.all(
      owners.map((owner) => accounts.acquire('race-expired', 'jdoe', owner, NOW + TTL, TTL)),
    );
    expect(results.filter((result) => result.acquired)).toHaveLength(1);
  });

  it('refuses another owner until the lease expires, renews it for its owner', async () => {
    expect(await accounts.acquire('hr', 'jdoe', 'first', NOW, TTL, true)).toEqual({
      acquired: true,
      expiresAt: '2025-06-01T12:01:00.000Z',
      etag: expect.any(String),
      record: null,
    });
    expect(await accounts.acquire('hr', 'jdoe', 'first', NOW + 30_000, TTL)).toMatchObject({
      acquired: true,
      expiresAt: '2025-06-01T12:01:30.000Z',
    });
    expect(await accounts.acquire('hr', 'jdoe', 'second', NOW + TTL, TTL)).toMatchObject({
      acquired: false,
      holder: 'first',
    });
    expect(await accounts.acquire('hr', 'jdoe', 'second', NOW + TTL + 30_000, TTL)).toMatchObject({
      acquired: true,
      expiresAt: '2025-06-01T12:02:30.000Z',
    });
  });

  it('ignores a release by someone who does not hold the lease, and never frees a lease taken over since', async () => {
    const mine = await accounts.acquire('release', 'jdoe', 'me', NOW, TTL);
    await accounts.release('release', 'jdoe', 'intruder');
    expect(await accounts.acquire('release', 'jdoe', 'intruder', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'me',
    });
    await accounts.release('release', 'jdoe', 'me', { etag: mine.etag!, stored: null });
    const theirs = await accounts.acquire('release', 'jdoe', 'them', NOW, TTL);
    expect(theirs.acquired).toBe(true);
    // A stale release (my old version) leaves their lease alone.
    await accounts.release('release', 'jdoe', 'me', { etag: mine.etag!, stored: null });
    await accounts.release('release', 'jdoe', 'me');
    expect(await accounts.acquire('release', 'jdoe', 'me', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'them',
    });
    await expect(accounts.release('release', 'nobody-here', 'me')).resolves.toBeUndefined();
  });
});

describe('TableAccountState: a step written in one transaction (DESIGN invariant 1)', () => {
  it('writes the entries, the record and the lease together, and hands the record to the next lease', async () => {
    const taken = await accounts.acquire('steps', 'ada', 'req-1', NOW, TTL, true);
    const first = await accounts.commitStep({
      connector: 'steps',
      accountId: 'ada',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: taken.etag!,
      stored: null,
      entries: [],
      update: { link: { targetId: 'u-1', linkedAt: AT, createdAt: AT } },
      release: false,
    });
    expect(first.record).toMatchObject({ targetId: 'u-1', createdAt: AT, assignedGroups: [] });
    expect(first.etag).toEqual(expect.any(String));
    // Still held: another owner is refused.
    expect(await accounts.acquire('steps', 'ada', 'req-2', NOW + 1_000, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-1',
    });
    const second = await accounts.commitStep({
      connector: 'steps',
      accountId: 'ada',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: first.etag!,
      stored: first.record,
      entries: entries('steps', 'ada', 1, ['g-2', 'g-1']),
      update: { granted: ['g-2', 'g-1'], groupsAt: AT },
      release: true,
    });
    expect(second.etag).toBeUndefined();
    const page = await journal.query({ connector: 'steps', accountId: 'ada' });
    expect(page.entries.map((entry) => entry.groupId).sort()).toEqual(['g-1', 'g-2']);
    // Released: the next request takes it at once and gets the record with it.
    const next = await accounts.acquire('steps', 'ada', 'req-2', NOW + 1_000, TTL);
    expect(next).toMatchObject({
      acquired: true,
      record: { targetId: 'u-1', assignedGroups: ['g-1', 'g-2'] },
    });
    expect(await accounts.get('steps', 'ada')).toEqual(next.record);
  });

  it('writes nothing of a step when its transaction fails, and then writes it all', async () => {
    await accounts.acquire('atomic', 'bob', 'req-1', NOW, TTL, true);
    // A stale version (the row changed): the transaction is refused as a whole, and the
    // commit then writes the entries and the record as it is now.
    const committed = await accounts.commitStep({
      connector: 'atomic',
      accountId: 'bob',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: 'W/"datetime\'2000-01-01T00%3A00%3A00.0000000Z\'"',
      stored: null,
      entries: entries('atomic', 'bob', 0, ['g-1']),
      update: { link: { targetId: 'u-9', linkedAt: AT }, granted: ['g-1'], groupsAt: AT },
      release: false,
    });
    expect(committed.record).toMatchObject({ targetId: 'u-9', assignedGroups: ['g-1'] });
    const page = await journal.query({ connector: 'atomic' });
    expect(page.entries.map((entry) => entry.groupId)).toEqual(['g-1']);
    // The lease is kept: the row's own lease stays as it was.
    expect(await accounts.acquire('atomic', 'bob', 'req-2', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-1',
    });
  });

  it('writes more entries than one transaction holds, each once', async () => {
    const taken = await accounts.acquire('many', 'cy', 'req-1', NOW, TTL, true);
    const groups = Array.from({ length: 150 }, (_, i) => `g-${String(i).padStart(3, '0')}`);
    const commit = {
      connector: 'many',
      accountId: 'cy',
      owner: 'req-1',
      leaseExpiresAtMs: NOW + TTL,
      etag: taken.etag!,
      stored: null,
      entries: entries('many', 'cy', 0, groups),
      update: { link: { targetId: 'u-3', linkedAt: AT }, granted: groups, groupsAt: AT },
      release: true,
    };
    await accounts.commitStep(commit);
    // The same step again (a retried activity): nothing doubles.
    await accounts.commitStep(commit);
    const page = await journal.query({ connector: 'many', limit: 1000 });
    expect(page.entries).toHaveLength(150);
    expect((await accounts.get('many', 'cy'))?.assignedGroups).toHaveLength(150);
  });

  it("writes an earlier request's change found later under its own time, once, whether in one transaction or in parts", async () => {
    const taken = await accounts.acquire('found', 'eve', 'req-2', NOW, TTL, true);
    const lost: LostWrite = {
      change: 'member added',
      groupId: 'g-9',
      groupName: 'Sales',
      requestId: 'req-1',
      step: 0,
      at: '2025-06-01T11:00:00.000Z',
      notInPlaceBefore: true,
    };
    const linked = await accounts.commitStep({
      connector: 'found',
      accountId: 'eve',
      owner: 'req-2',
      leaseExpiresAtMs: NOW + TTL,
      etag: taken.etag!,
      stored: null,
      entries: [],
      update: {
        link: { targetId: 'u-5', linkedAt: AT },
        unconfirmedGroups: ['g-9'],
        lostWrites: [lost],
      },
      release: false,
    });
    expect(linked.record?.lostWrites).toEqual([lost]);
    const found = foundLaterEntries('found', 'eve', [
      { write: lost, by: 'request "req-2" step 0', at: AT },
    ]);
    // This step's own entry is step 0 too, at another time: each keeps its own.
    const commit = {
      connector: 'found',
      accountId: 'eve',
      owner: 'req-2',
      leaseExpiresAtMs: NOW + TTL,
      etag: linked.etag!,
      stored: linked.record,
      entries: [...entries('found', 'eve', 0, ['g-1']), ...found],
      update: { granted: ['g-1', 'g-9'], settledLostWrites: ['g-9'], groupsAt: AT },
      step: 0,
      release: false,
    };
    const first = await accounts.commitStep(commit);
    expect(first.record?.lostWrites).toBeUndefined();
    expect(first.record?.unconfirmedGroups).toBeUndefined();
    // Again, with a stale version: written in parts, onto the same rows.
    await accounts.commitStep({ ...commit, etag: first.etag!, stored: first.record });
    await accounts.commitStep({
      ...commit,
      etag: 'W/"datetime\'2000-01-01T00%3A00%3A00.0000000Z\'"',
    });
    const page = await journal.query({ connector: 'found' });
    expect(
      page.entries.map((entry) => [entry.requestId, entry.groupId, entry.at, entry.foundBy]),
    ).toEqual([
      ['req-1', 'g-9', lost.at, 'request "req-2" step 0'],
      ['req-eve', 'g-1', AT, undefined],
    ]);
  });

  it("keeps a connector's account rows out of its journal", async () => {
    await accounts.acquire('rows', 'dee', 'req-1', NOW, TTL, true);
    expect((await journal.query({ connector: 'rows' })).entries).toEqual([]);
    expect((await journal.query({})).entries.every((entry) => entry.change !== undefined)).toBe(
      true,
    );
  });
});

describe('TableAccountState: the records reconciliation compares the target with', () => {
  const record = (accountId: string, targetId: string): AccountRecord => ({
    connector: 'listed',
    accountId,
    targetId,
    linkedAt: AT,
    enabled: true,
    assignedGroups: ['g-1'],
  });

  it('lists the linked accounts of a connector, not its journal, its deleted accounts or another connector', async () => {
    await accounts.put(record('ada/1', 't-ada'));
    await accounts.put(record('bob', 't-bob'));
    await accounts.put(record('gone', ''));
    await accounts.put({ ...record('other', 't-other'), connector: 'elsewhere' });
    await accounts.commitStep({
      connector: 'listed',
      accountId: 'bob',
      owner: 'req-bob',
      leaseExpiresAtMs: NOW + TTL,
      entries: entries('listed', 'bob', 0, ['g-2']),
      update: { granted: ['g-2'], groupsAt: AT },
      release: true,
    });

    const listed: AccountRecord[] = [];
    for await (const linked of accounts.listLinked('listed')) listed.push(linked);
    expect(
      listed.map((linked) => [linked.accountId, linked.targetId, linked.assignedGroups]),
    ).toEqual([
      ['ada/1', 't-ada', ['g-1']],
      ['bob', 't-bob', ['g-1', 'g-2']],
    ]);
  });

  it('keeps the lease of a row a record is put into', async () => {
    await accounts.acquire('listed', 'held', 'req-held', NOW, TTL, true);
    await accounts.put(record('held', 't-held'));
    expect(await accounts.acquire('listed', 'held', 'someone-else', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'req-held',
    });
    expect(await accounts.get('listed', 'held')).toMatchObject({ targetId: 't-held' });
  });
});
