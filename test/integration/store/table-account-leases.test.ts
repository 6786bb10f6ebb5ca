import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { TableAccountLeases } from '../../../src/store/table-account-leases';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let leases: TableAccountLeases;

beforeAll(async () => {
  storage = await startTestStorage();
  leases = new TableAccountLeases(tableClient(storage.connection, 'Leases'));
});
afterAll(() => storage.close());

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const TTL = 60_000;

describe('TableAccountLeases', () => {
  it('lets exactly one of ten concurrent owners take a free lease', async () => {
    const owners = Array.from({ length: 10 }, (_, index) => `owner-${index}`);
    const results = await Promise.all(
      owners.map((owner) => leases.acquire('race', 'a/b#c?d', owner, NOW, TTL)),
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
    await leases.acquire('race-expired', 'jdoe', 'old', NOW, TTL);
    const later = NOW + TTL;
    const owners = Array.from({ length: 10 }, (_, index) => `owner-${index}`);
    const results = await Promise.all(
      owners.map((owner) => leases.acquire('race-expired', 'jdoe', owner, later, TTL)),
    );
    expect(results.filter((result) => result.acquired)).toHaveLength(1);
  });

  it('refuses another owner until the lease expires, then lets it in', async () => {
    expect(await leases.acquire('hr', 'jdoe', 'first', NOW, TTL)).toEqual({
      acquired: true,
      expiresAt: '2025-06-01T12:01:00.000Z',
      etag: expect.any(String),
    });
    expect(await leases.acquire('hr', 'jdoe', 'second', NOW + TTL - 1, TTL)).toMatchObject({
      acquired: false,
      holder: 'first',
    });
    expect(await leases.acquire('hr', 'jdoe', 'second', NOW + TTL, TTL)).toEqual({
      acquired: true,
      expiresAt: '2025-06-01T12:02:00.000Z',
      etag: expect.any(String),
    });
    expect(await leases.acquire('hr', 'jdoe', 'first', NOW + TTL, TTL)).toMatchObject({
      acquired: false,
      holder: 'second',
    });
  });

  it('renews a lease for its owner', async () => {
    await leases.acquire('renew', 'jdoe', 'me', NOW, TTL);
    expect(await leases.acquire('renew', 'jdoe', 'me', NOW + 30_000, TTL)).toEqual({
      acquired: true,
      expiresAt: '2025-06-01T12:01:30.000Z',
      etag: expect.any(String),
    });
    expect(await leases.acquire('renew', 'jdoe', 'other', NOW + TTL, TTL)).toMatchObject({
      acquired: false,
    });
  });

  it('ignores a release by someone who does not hold the lease, and frees it for its owner', async () => {
    await leases.acquire('release', 'jdoe', 'holder', NOW, TTL);
    await leases.release('release', 'jdoe', 'intruder');
    expect(await leases.acquire('release', 'jdoe', 'intruder', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'holder',
    });
    await leases.release('release', 'jdoe', 'holder');
    expect(await leases.acquire('release', 'jdoe', 'intruder', NOW, TTL)).toMatchObject({
      acquired: true,
    });
    await expect(leases.release('release', 'nobody-here', 'holder')).resolves.toBeUndefined();
  });

  it('releases with the ETag of the last acquire, and never frees a lease taken over since', async () => {
    const mine = await leases.acquire('etag', 'jdoe', 'me', NOW, TTL);
    await leases.release('etag', 'jdoe', 'me', mine.etag);
    const theirs = await leases.acquire('etag', 'jdoe', 'them', NOW, TTL);
    expect(theirs.acquired).toBe(true);
    // A stale release (my old ETag) must leave their lease alone.
    await leases.release('etag', 'jdoe', 'me', mine.etag);
    expect(await leases.acquire('etag', 'jdoe', 'me', NOW, TTL)).toMatchObject({
      acquired: false,
      holder: 'them',
    });
  });
});
