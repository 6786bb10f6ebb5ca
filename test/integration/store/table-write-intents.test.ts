import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableClient } from '@azure/data-tables';
import { firstKeptDay } from '../../../src/domain/write-intent-retention';
import { tableClient } from '../../../src/store/storage-clients';
import { TableWriteIntents } from '../../../src/store/table-write-intents';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let intents: TableWriteIntents;
let raw: TableClient;

beforeAll(async () => {
  storage = await startTestStorage();
  raw = tableClient(storage.connection, 'Intents');
  intents = new TableWriteIntents(raw);
});
afterAll(() => storage.close());

/** The rows the table holds, as `partition/row`: what is stored, not what the store says. */
async function rows(): Promise<string[]> {
  const found: string[] = [];
  for await (const row of raw.listEntities()) found.push(`${row.partitionKey}/${row.rowKey}`);
  return found.sort();
}

describe('TableWriteIntents', () => {
  it('tells a second run of the same write that the first one recorded it', async () => {
    expect(await intents.claim('a1b2c3', '2026-11-24')).toBe(false);
    expect(await intents.claim('a1b2c3', '2026-11-24')).toBe(true);
    expect(await intents.claim('a1b2c4', '2026-11-24')).toBe(false);
  });

  it('answers concurrent claims of one key once with "new"', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => intents.claim('ffee01', '2026-11-24')),
    );
    expect(answers.filter((existed) => !existed)).toHaveLength(1);
  });

  it('withdraws a claim, with or without a day, so that the next run claims it anew', async () => {
    await intents.claim('d1d1d1', '2026-11-24');
    await intents.claim('d2d2d2');
    await intents.withdraw('d1d1d1', '2026-11-24');
    await intents.withdraw('d2d2d2');
    expect(await rows()).not.toContain('on-2026-11-24~d1/d1d1d1');
    expect(await rows()).not.toContain('d2/d2d2d2');
    expect(await intents.claim('d1d1d1', '2026-11-24')).toBe(false);
    expect(await intents.claim('d2d2d2')).toBe(false);
    // One gone already (another run withdrew it, or the purge): no error.
    await intents.withdraw('d3d3d3', '2026-11-24');
  });

  it('keeps a claim without a day where claims were kept before days: found there again', async () => {
    expect(await intents.claim('0badc0de')).toBe(false);
    expect(await intents.claim('0badc0de')).toBe(true);
    expect(await rows()).toContain('0b/0badc0de');
  });
});

describe('the purge of write intents', () => {
  it('deletes the days before the first day kept, keeps that day and the later ones', async () => {
    const now = Date.parse('2026-11-24T04:15:00Z');
    const first = firstKeptDay(now, 45);
    expect(first).toBe('2026-10-10');
    // 150 intents on a day long gone (more than one transaction), two on the day before the
    // first kept, one on it, one today.
    const gone = Array.from({ length: 150 }, (_, i) => `aa${String(i).padStart(4, '0')}`);
    for (const key of gone) await intents.claim(key, '2026-09-30');
    await intents.claim('c0ffee', '2026-10-09');
    await intents.claim('c0ffef', '2026-10-09');
    await intents.claim('beef01', '2026-10-10');
    await intents.claim('beef02', '2026-11-24');

    const deleted = await intents.purge(first);
    expect(deleted).toBe(152);
    const left = await rows();
    expect(
      left.filter((row) => row.startsWith('on-2026-09') || row.includes('2026-10-09')),
    ).toEqual([]);
    expect(left).toEqual(
      expect.arrayContaining(['on-2026-10-10~be/beef01', 'on-2026-11-24~be/beef02', '0b/0badc0de']),
    );
    // What is kept is still found by a write run again; what was purged is not.
    expect(await intents.claim('beef01', '2026-10-10')).toBe(true);
    expect(await intents.claim('c0ffee', '2026-10-09')).toBe(false);
    expect(await intents.purge(first)).toBe(1);
  });

  it('deletes intents kept before days once they were last written before the first day kept', async () => {
    expect(await rows()).toContain('0b/0badc0de');
    await intents.claim('f00d01', '2099-01-01');
    // Written today: kept by a purge whose first kept day is today or earlier...
    const today = new Date().toISOString().slice(0, 10);
    await intents.purge(today);
    expect(await rows()).toContain('0b/0badc0de');
    // ...and deleted once every day up to today has passed the retention.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await intents.purge(tomorrow);
    const left = await rows();
    expect(left.filter((row) => !row.startsWith('on-'))).toEqual([]);
    expect(left).toEqual(['on-2099-01-01~f0/f00d01']);
  });
});
