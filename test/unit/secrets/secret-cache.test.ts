import { describe, expect, it } from 'vitest';
import { SecretCache } from '../../../src/secrets/secret-cache';

function deferred(): { promise: Promise<string>; resolve(value: string): void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

describe('SecretCache', () => {
  it('reuses a value until ttl has passed, then loads again', async () => {
    let now = 0;
    const cache = new SecretCache(100, () => now);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.read('a', load)).toBe('v1');
    now = 99;
    expect(await cache.read('a', load)).toBe('v1');
    now = 100;
    expect(await cache.read('a', load)).toBe('v2');
  });

  it('keeps nothing with ttl 0', async () => {
    const cache = new SecretCache(0, () => 0);
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.read('a', load);
    expect(await cache.read('a', load)).toBe('v2');
  });

  it('shares one load between concurrent reads, names compared case-insensitively', async () => {
    const cache = new SecretCache(0, () => 0);
    const pending = deferred();
    let loads = 0;
    const load = () => {
      loads += 1;
      return pending.promise;
    };
    const reads = [cache.read('Token', load), cache.read('token', load)];
    pending.resolve('shared');
    expect(await Promise.all(reads)).toEqual(['shared', 'shared']);
    expect(loads).toBe(1);
  });

  it('does not cache a failed load', async () => {
    const cache = new SecretCache(1_000, () => 0);
    await expect(cache.read('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.read('a', async () => 'recovered')).toBe('recovered');
  });

  it('lets a write win over a load that was under way', async () => {
    const cache = new SecretCache(1_000, () => 0);
    const stale = deferred();
    const before = cache.read('a', () => stale.promise);
    cache.store('a', 'written');
    stale.resolve('old');
    expect(await before).toBe('old');
    expect(await cache.read('a', async () => 'loaded')).toBe('written');
  });

  it('makes reads after an eviction load again instead of joining an older load', async () => {
    const cache = new SecretCache(1_000, () => 0);
    const stale = deferred();
    void cache.read('a', () => stale.promise);
    cache.evict('a');
    const after = cache.read('a', async () => 'fresh');
    stale.resolve('old');
    expect(await after).toBe('fresh');
    expect(await cache.read('a', async () => 'unused')).toBe('fresh');
  });
});
