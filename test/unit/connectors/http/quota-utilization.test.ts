import { describe, expect, it } from 'vitest';
import { quotaUtilization, type QuotaBudget } from '../../../../src/connectors/http/quota-budget';
import { TokenBucket } from '../../../../src/connectors/http/token-bucket';

const budget = (now: number): QuotaBudget => ({
  buckets: new Map([
    ['writes', new TokenBucket({ capacity: 100, windowMs: 10_000 }, now)],
    ['units', new TokenBucket({ capacity: 1_000, windowMs: 10_000 }, now)],
  ]),
  learn: () => false,
});

describe('quotaUtilization', () => {
  it('is the share of the fullest bucket spent, refilled over its window, within 0 and 1', () => {
    const b = budget(0);
    expect(quotaUtilization(b, 0)).toBe(0);
    b.buckets.get('writes')!.take(25, 0);
    b.buckets.get('units')!.take(100, 0);
    expect(quotaUtilization(b, 0)).toBe(0.25);
    // An eighth of the window later, an eighth of each capacity came back.
    expect(quotaUtilization(b, 1_250)).toBe(0.125);
    // Calls waiting beyond the capacity count as used, and the share stays at most 1.
    b.buckets.get('units')!.take(2_000, 1_250);
    expect(quotaUtilization(b, 1_250)).toBe(1);
  });
});
