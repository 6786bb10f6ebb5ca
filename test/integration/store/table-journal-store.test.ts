import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalEntryKey, type JournalEntry } from '../../../src/domain/journal-entry';
import type { RecordedJournalEntry } from '../../../src/store/journal-store';
import { tableClient } from '../../../src/store/storage-clients';
import { TableJournalStore } from '../../../src/store/table-journal-store';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let journal: TableJournalStore;
const BEGAN = new Date().toISOString();

beforeAll(async () => {
  storage = await startTestStorage();
  journal = new TableJournalStore(tableClient(storage.connection, 'Journal'));
});
afterAll(() => storage.close());

/** The entries as they were written (without the time the table recorded them). */
function written(entries: readonly RecordedJournalEntry[]): JournalEntry[] {
  return entries.map(({ recordedAt: _, ...entry }) => entry);
}

function entry(
  connector: string,
  accountId: string,
  step: number,
  at: string,
  groupId?: string,
): JournalEntry {
  const change = groupId === undefined ? 'account created' : 'member added';
  return {
    key: journalEntryKey(`req-${accountId}`, step, change, groupId),
    connector,
    accountId,
    requestId: `req-${accountId}`,
    step,
    change,
    ...(groupId === undefined ? {} : { groupId, groupName: `Group ${groupId}` }),
    at,
  };
}

describe('TableJournalStore', () => {
  it('records each entry once, however often it is recorded', async () => {
    const entries = [
      entry('once', 'jdoe', 0, '2025-01-01T10:00:00.000Z'),
      entry('once', 'jdoe', 1, '2025-01-01T10:00:01.000Z', 'g1'),
    ];
    await journal.record(entries);
    await journal.record(entries);
    await journal.record([entries[1]!]);
    const page = await journal.query({ connector: 'once' });
    expect(written(page.entries)).toEqual(entries);
    // When each row was written: the table's own time, after the test began.
    for (const { recordedAt } of page.entries) {
      expect(Date.parse(recordedAt)).toBeGreaterThanOrEqual(Date.parse(BEGAN) - 5_000);
    }
    expect(page.continuationToken).toBeUndefined();
  });

  it('records more than one transaction holds (100) in one call', async () => {
    const many = Array.from({ length: 130 }, (_, index) =>
      entry('many', 'bulk', index, new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString()),
    );
    await journal.record(many);
    const page = await journal.query({ connector: 'many', limit: 1000 });
    expect(page.entries).toHaveLength(130);
  });

  it('filters by account, with ids that need encoding and quoting', async () => {
    const odd = "a/b#c?d'e";
    await journal.record([
      entry('filter', odd, 0, '2025-02-01T00:00:00.000Z'),
      entry('filter', 'other', 0, '2025-02-01T00:00:00.000Z'),
      entry('filter/#?', odd, 0, '2025-02-01T00:00:00.000Z'),
    ]);
    const page = await journal.query({ connector: 'filter', accountId: odd });
    expect(page.entries.map((found) => [found.connector, found.accountId])).toEqual([
      ['filter', odd],
    ]);
    const other = await journal.query({ connector: 'filter/#?' });
    expect(other.entries.map((found) => found.accountId)).toEqual([odd]);
  });

  it('does not let a quote in a filter value widen the query', async () => {
    const page = await journal.query({ connector: 'filter', accountId: "x' or accountId ne '" });
    expect(page.entries).toEqual([]);
  });

  it('keeps the context of each entry and filters by case, requester and request', async () => {
    const ticket = `CHG-"42" 'Q' \\ & #%+ 山田 🎉`;
    const withContext = (base: JournalEntry, context: Partial<JournalEntry>): JournalEntry => ({
      ...base,
      ...context,
    });
    const first = withContext(entry('context', 'ada', 0, '2025-04-01T00:00:00.000Z'), {
      correlationId: ticket,
      requestedBy: "o'brien@example.test",
      reason: 'joiner: "new hire", team 営業',
    });
    const second = withContext(entry('context', 'ada', 1, '2025-04-01T00:00:01.000Z', 'g1'), {
      correlationId: ticket,
      requestedBy: 'iga-workflow',
    });
    const unrelated = entry('context', 'bob', 0, '2025-04-01T00:00:02.000Z');
    await journal.record([first, second, unrelated]);

    expect(written((await journal.query({ correlationId: ticket })).entries)).toEqual([
      first,
      second,
    ]);
    expect(
      written(
        (await journal.query({ connector: 'context', requestedBy: "o'brien@example.test" }))
          .entries,
      ),
    ).toEqual([first]);
    expect(written((await journal.query({ requestId: 'req-bob' })).entries)).toEqual([unrelated]);
    expect((await journal.query({ correlationId: "x' or correlationId ne '" })).entries).toEqual(
      [],
    );
  });

  it('returns a time range, from inclusive and to exclusive, in time order', async () => {
    const times = [
      '2025-03-01T09:00:00.000Z',
      '2025-03-01T10:00:00.000Z',
      '2025-03-01T11:00:00.000Z',
    ];
    await journal.record([...times].reverse().map((at, step) => entry('range', 'jdoe', step, at)));
    const page = await journal.query({
      connector: 'range',
      from: '2025-03-01T10:00:00Z',
      to: '2025-03-01T11:00:00.000Z',
    });
    expect(page.entries.map((found) => found.at)).toEqual([times[1]]);
    const all = await journal.query({ connector: 'range' });
    expect(all.entries.map((found) => found.at)).toEqual(times);
  });

  it('pages with a continuation token until every entry was read once', async () => {
    const seen: number[] = [];
    let continuationToken: string | undefined;
    let pages = 0;
    do {
      const page = await journal.query({ connector: 'many', limit: 40, continuationToken });
      expect(page.entries.length).toBeLessThanOrEqual(40);
      seen.push(...page.entries.map((found) => found.step));
      continuationToken = page.continuationToken;
      pages += 1;
    } while (continuationToken !== undefined);
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: 130 }, (_, index) => index));
  });

  it('orders entries of all connectors by connector, then time', async () => {
    const page = await journal.query({ accountId: 'jdoe', limit: 1000 });
    const connectors = page.entries.map((found) => found.connector);
    expect(connectors).toEqual([...connectors].sort());
    expect(new Set(connectors)).toEqual(new Set(['once', 'range']));
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 1001 }, 'limit'],
    [{ from: 'yesterday' }, 'from'],
    [{ continuationToken: 'not-a-token' }, 'continuationToken'],
  ])('refuses %j', async (query, object) => {
    await expect(journal.query(query)).rejects.toMatchObject({ code: 'REQUEST_INVALID', object });
  });
});
