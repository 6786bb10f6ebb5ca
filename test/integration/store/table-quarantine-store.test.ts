import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { TableQuarantineStore } from '../../../src/store/table-quarantine-store';
import { countStorageCalls } from '../../bench/storage-calls';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
const stores: TableQuarantineStore[] = [];
/** A worker's store: each has its own cache, as each Functions instance does. */
const worker = () => {
  const store = new TableQuarantineStore(tableClient(storage.connection, 'Quarantine'));
  stores.push(store);
  return store;
};

beforeAll(async () => {
  storage = await startTestStorage();
});
afterAll(() => storage.close());

const AT = '2026-11-23T08:00:00.000Z';
const reason = { code: 'TARGET_AUTH_FAILED' as const, message: 'answered 401' };
const entry = (at = AT) => ({ at, reason, nextProbeAt: '2026-11-23T08:00:30.000Z' });
const probe = { at: AT, error: reason, nextProbeAt: '2026-11-23T08:00:30.000Z' };

describe('TableQuarantineStore', () => {
  it('quarantines once when ten workers decide at the same time', async () => {
    const workers = Array.from({ length: 10 }, worker);
    const states = await Promise.all(workers.map((store) => store.enter('hr/app#1', entry())));
    expect(new Set(states.map((state) => state.epoch))).toEqual(new Set([1]));
    expect(await worker().get('hr/app#1')).toMatchObject({
      connector: 'hr/app#1',
      quarantined: true,
      epoch: 1,
      since: AT,
      reason,
      probes: 0,
    });
  });

  it('counts the probes of its own quarantine only, and a release ends it once', async () => {
    const store = worker();
    await store.enter('probed', entry());
    const failed = await store.probeFailed('probed', 1, {
      at: '2026-11-23T08:00:30.000Z',
      error: { code: 'TARGET_AUTH_FAILED', message: 'still 401' },
      nextProbeAt: '2026-11-23T08:01:30.000Z',
    });
    expect(failed).toMatchObject({ probes: 1, nextProbeAt: '2026-11-23T08:01:30.000Z' });
    expect(failed?.lastError).toEqual({
      code: 'TARGET_AUTH_FAILED',
      message: 'still 401',
      at: '2026-11-23T08:00:30.000Z',
    });
    expect(await store.probeFailed('probed', 7, probe)).toBeUndefined();

    const [first, second] = await Promise.all([
      store.release('probed', { operator: 'ada@contoso.example' }, '2026-11-23T08:01:00.000Z'),
      worker().release('probed', 'probe', '2026-11-23T08:01:00.000Z', 1),
    ]);
    expect([first.released, second.released].filter(Boolean)).toHaveLength(1);
    const after = await worker().get('probed');
    expect(after).toMatchObject({ quarantined: false, releasedAt: '2026-11-23T08:01:00.000Z' });
    // A probe of the ended quarantine changes nothing.
    expect(await store.probeFailed('probed', 1, probe)).toBeUndefined();

    const again = await store.enter('probed', entry('2026-11-23T09:00:00.000Z'));
    expect(again).toMatchObject({ epoch: 2, quarantined: true, probes: 0 });
    expect(again.releasedAt).toBeUndefined();
  });

  it('keeps the requests it holds, oldest first, and forgets them when they go on', async () => {
    const store = worker();
    await store.hold('held', { requestId: 'r-2', since: '2026-11-23T08:02:00.000Z' });
    await store.hold('held', { requestId: 'r-1', since: '2026-11-23T08:01:00.000Z' });
    await store.hold('held', { requestId: 'r-1', since: '2026-11-23T08:01:00.000Z' });
    await store.hold('other', { requestId: 'r-9', since: AT });
    expect(await store.held('held')).toEqual([
      { requestId: 'r-1', since: '2026-11-23T08:01:00.000Z' },
      { requestId: 'r-2', since: '2026-11-23T08:02:00.000Z' },
    ]);
    await store.unhold('held', 'r-1');
    await store.unhold('held', 'r-1');
    expect((await store.held('held')).map((held) => held.requestId)).toEqual(['r-2']);
  });

  it('lists every connector ever quarantined, without their held requests', async () => {
    const listed = await worker().list();
    expect(listed.map((state) => state.connector).sort()).toEqual(['hr/app#1', 'probed']);
  });

  it('answers a first look from what this worker read moments ago, and reads again when asked to', async () => {
    const reader = worker();
    expect(await reader.get('cached')).toBeUndefined();
    await worker().enter('cached', entry());
    expect(await reader.get('cached', { maxAgeMs: 60_000 })).toBeUndefined();
    expect(await reader.get('cached')).toMatchObject({ quarantined: true });
  });

  it('gives first looks that start together one read, and a plain look a read of its own', async () => {
    if (storage.connection.kind !== 'connectionString') throw new Error('Azurite gives a string');
    await worker().enter('together', entry());
    const reader = worker();
    await reader.held('together'); // the table is ensured once per store: not counted
    const calls = countStorageCalls(storage.connection.connectionString);
    try {
      const looks = await Promise.all(
        Array.from({ length: 20 }, () => reader.get('together', { maxAgeMs: 5_000 })),
      );
      expect(looks.every((state) => state?.quarantined === true)).toBe(true);
      expect(calls.counts.byKind).toEqual({ 'table GET Quarantine': 1 });
      await Promise.all([reader.get('together'), reader.get('together')]);
      expect(calls.counts.byKind).toEqual({ 'table GET Quarantine': 3 });
    } finally {
      calls.stop();
    }
  });
});
