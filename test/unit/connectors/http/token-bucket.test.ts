import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../../src/connectors/http/token-bucket';

/** 10 units per 10 s: one per second. */
const bucket = (now = 0) => new TokenBucket({ capacity: 10, windowMs: 10_000 }, now);

describe('TokenBucket', () => {
  it('spends its capacity at once, then answers how long each further take waits, in order', () => {
    const b = bucket();
    for (let i = 0; i < 10; i++) expect(b.take(1, 0)).toBe(0);
    expect(b.take(1, 0)).toBe(1_000);
    expect(b.take(3, 0)).toBe(4_000);
    expect(b.take(1, 2_000)).toBe(3_000);
  });

  it('refills no further than what it will hold once the calls in flight are charged', () => {
    const b = bucket();
    b.take(4, 0);
    b.sent(4, 0);
    // 30 s later the four are still in flight: the target has not charged them yet.
    expect(b.levelAt(30_000)).toBe(6);
    b.settle(4, 30_000);
    expect(b.levelAt(31_000)).toBe(7);
    expect(b.levelAt(60_000)).toBe(10);
  });

  it('is emptied until a Retry-After, and never shows more left than the target says', () => {
    const b = bucket();
    b.emptyUntil(5_000, 0);
    expect(b.take(1, 0)).toBe(6_000);
    const c = bucket();
    c.used(0.7, 0);
    expect(c.levelAt(0)).toBeCloseTo(3);
    c.used(0.1, 0);
    expect(c.levelAt(0)).toBeCloseTo(3);
    c.adjust(2, 0);
    expect(c.levelAt(0)).toBeCloseTo(1);
  });
});
