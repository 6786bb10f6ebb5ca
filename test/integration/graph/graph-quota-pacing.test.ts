import { afterEach, describe, expect, it } from 'vitest';
import type { GraphConnector } from '../../../src/connectors/graph';
import { ScaledClock } from '../../../src/runtime/local-host/virtual-clock';
import {
  startGraphSandbox,
  type GraphSandbox,
  type GraphQuotaOptions,
} from '../../../src/sandbox/graph';
import { graphSandboxConnector } from '../../support/graph-sandbox-connector';
import { createdAccount, runMembership } from '../../support/membership-procedure';

/**
 * The connector paces its calls to Entra ID's write quota (graph-behaviour.md: 3,000 writes
 * per 150 s per app and tenant) instead of bouncing off it: a small, time-scaled run of the
 * bulk shape (create + grant of 3 groups) against the sandbox in quota mode, the connector
 * on a clock sped up as the sandbox's quota is.
 */
const SCALE = 20;
/** 40 writes per 10 s: 4 per second of the quota's clock. */
const QUOTA = { writes: 40, writeWindowMs: 10_000 };
const REQUESTS = 30;

let sandbox: GraphSandbox | undefined;
let connector: GraphConnector | undefined;
afterEach(async () => {
  await connector?.close();
  await sandbox?.close();
  connector = undefined;
  sandbox = undefined;
});

async function bulkRun(quota: GraphQuotaOptions) {
  sandbox = await startGraphSandbox({ quota: { ...quota, timeScale: SCALE } });
  const clock = new ScaledClock(SCALE);
  const time = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms) };
  connector = graphSandboxConnector(
    sandbox,
    {
      name: 'entra-quota',
      concurrency: 8,
      quota: { writes: QUOTA.writes, writeSeconds: QUOTA.writeWindowMs / 1000 },
    },
    time,
  );
  const graph = connector;
  const groups = ['Alpha', 'Beta', 'Gamma'].map(
    (name) => sandbox!.addGroup({ displayName: name }).id,
  );
  const outcomes = await Promise.all(
    Array.from({ length: REQUESTS }, async (_, i) => {
      const account = await createdAccount(graph, { accountId: `paced.user${i}` });
      return runMembership(graph, account, 'grant', groups, time);
    }),
  );
  return { s: sandbox, groups, outcomes };
}

describe('pacing to the write quota (time-scaled)', () => {
  it('rides under the quota once its burst is spent: every request done, no call answered 429', async () => {
    // 120 writes: the first 40 at once (the bucket is full), 80 more at 4 per second.
    const { s, groups, outcomes } = await bulkRun(QUOTA);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    for (let i = 0; i < REQUESTS; i++) {
      const id = s.userIdByUpn(`paced.user${i}@contoso.example`)!;
      expect(s.groupIdsOf(id).sort()).toEqual([...groups].sort());
    }
    const stats = s.quotaStats()!;
    expect(stats.writes).toBe(REQUESTS * 4);
    expect(stats.throttled / stats.calls).toBeLessThan(0.01);
  });

  it('meets a quota already spent by someone else: 429s for the first round only, then paced', async () => {
    const { s, outcomes } = await bulkRun({ ...QUOTA, startEmpty: true });
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    const stats = s.quotaStats()!;
    expect(stats.writes).toBe(REQUESTS * 4);
    // The calls in flight when the first 429s came back (concurrency 8), and a few sent
    // before the deepest Retry-After was known: not one per request.
    expect(stats.throttled).toBeLessThanOrEqual(16);
    expect(stats.throttled / stats.calls).toBeLessThan(0.1);
  });
});
