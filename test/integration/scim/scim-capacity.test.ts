import { afterEach, describe, expect, it } from 'vitest';
import { createdAccount, runMembership } from '../../support/membership-procedure';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * SCIM capacity: a target that can work on few requests at once answers more slowly the more
 * it is given. The connector lets fewer calls in flight as its latency grows (AIMD), the
 * configured concurrency its ceiling, instead of keeping the target's queue full.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('per-target concurrency that follows the target', () => {
  it("keeps a slow server's queue short, not full at the configured 16, and every grant is made", async () => {
    target = await startScimTarget(
      { quirks: { capacity: { concurrent: 2, serviceMs: 50 } } },
      { concurrency: 16 },
    );
    const t = target;
    const groups = t.sandbox
      .seedGroups(Array.from({ length: 40 }, (_, i) => ({ displayName: `Team ${i}` })))
      .map((group) => group.id);
    const accounts = await Promise.all(
      Array.from({ length: 4 }, (_, i) => createdAccount(t.connector, { accountId: `busy.${i}` })),
    );
    t.sandbox.clearRequests();

    const outcomes = await Promise.all(
      accounts.map((account) => runMembership(t.connector, account, 'grant', groups)),
    );

    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    for (const account of accounts) {
      expect(t.sandbox.groupIdsOf(account.accountId).sort()).toEqual([...groups].sort());
    }
    // What the server saw: requests in it at each arrival. The first ones find (nearly) the
    // configured 16; once the latency has told, a few more than its two workers.
    const seen = t.sandbox.requests.map((request) => request.concurrent);
    expect(Math.max(...seen.slice(0, 20))).toBeGreaterThanOrEqual(10);
    expect(median(seen.slice(-seen.length / 3))).toBeLessThanOrEqual(6);
  });
});
