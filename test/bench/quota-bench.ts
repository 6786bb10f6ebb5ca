import { loadavg } from 'node:os';
import { requestInstanceId } from '../../src/workflows/names';
import { allFinished, startBenchHost } from './bench-host';
import { measure } from './measure';

const REQUESTS = Number(process.env.BENCH_QUOTA_REQUESTS ?? 500);
/** The quota's shape run this many times faster (the service's clock and the sandbox's quota alike). */
const SCALE = Number(process.env.BENCH_QUOTA_SCALE ?? 2);
const LATENCY_MS = 20;
const GROUPS = ['Engineering', 'Sales', 'Finance'];
/** graph-behaviour.md: 3,000 writes per 150 s per app and tenant. */
const WRITES_PER_SECOND = 3000 / 150;

/**
 * Issue 15 benchmark: 500 Graph requests (create + grant of 3 groups) through the bulk
 * queue and the service, against the Graph sandbox in quota mode (Entra ID's documented
 * limits, run SCALE times faster on the service's clock and the sandbox's quota alike),
 * the tenant's write bucket empty at the start (the middle of a long bulk run: from a full
 * bucket the first 3,000 writes would pass at once and nothing would be paced).
 */
export async function runQuotaBench(print: (line: string) => void): Promise<void> {
  const bench = await startBenchHost({
    latencyMs: LATENCY_MS,
    scale: SCALE,
    graphQuota: { timeScale: SCALE, startEmpty: true },
  });
  const { host, targets } = bench;
  try {
    await targets.command('reset quota');
    const before = await targets.counts();
    const load = loadavg()[0]!;
    const ids = Array.from({ length: REQUESTS }, (_, i) => `quota-${i}`);
    const messages = ids.map((requestId, i) => ({
      requestId,
      connector: 'graph-sandbox',
      account: { accountId: `quota.user${i}@contoso.example`, displayName: `Quota User ${i}` },
      actions: [{ type: 'create' }, { type: 'grant', groups: GROUPS }],
    }));
    const run = await measure(async () => {
      await bench.sendBulk(messages);
      return allFinished(host, ids.map(requestInstanceId));
    });
    const after = await targets.counts();
    const failed = run.value.filter(
      (state) => (state.output as { status?: string } | null)?.status !== 'succeeded',
    ).length;
    const quota = after.quota!;
    const writes = quota.writes - (before.quota?.writes ?? 0);
    const calls = after.graphCalls - before.graphCalls;
    const throttled = after.graphThrottled - before.graphThrottled;
    const quotaWallS = (run.wallMs / 1000) * SCALE;
    const idealS = writes / WRITES_PER_SECOND;
    print(
      `quota: ${REQUESTS} Graph requests (create + grant 3 groups) via the bulk queue, Entra's write quota (3,000 per 150 s) run ${SCALE}x faster, the bucket empty at the start; load average ${load.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`,
    );
    print(
      `  failed requests ${failed}; writes ${writes} (${(writes / REQUESTS).toFixed(2)} per request); wall ${(run.wallMs / 1000).toFixed(1)} s = ${quotaWallS.toFixed(1)} s of the quota's time`,
    );
    // From the first write the quota let through to the last, on the quota's clock.
    const pacedS = ((quota.lastWriteAt ?? 0) - (quota.firstWriteAt ?? 0)) / 1000;
    print(
      `  first write ${(((quota.firstWriteAt ?? 0) - quota.startedAt) / 1000).toFixed(1)} s into the run, last ${(((quota.lastWriteAt ?? 0) - quota.startedAt) / 1000).toFixed(1)} s (the quota's time)`,
    );
    print(
      `  sustained write rate (first write to last) ${((writes - 1) / pacedS).toFixed(2)}/s = ${((100 * (writes - 1)) / pacedS / WRITES_PER_SECOND).toFixed(1)} % of the quota (target >= 90 %)`,
    );
    print(
      `  write rate over the whole run ${(writes / quotaWallS).toFixed(2)}/s = ${((100 * writes) / quotaWallS / WRITES_PER_SECOND).toFixed(1)} % of the quota; wall / (writes / quota rate) = ${quotaWallS.toFixed(1)} / ${idealS.toFixed(1)} s = ${(quotaWallS / idealS).toFixed(3)} (target <= 1.15)`,
    );
    print(
      `  429 answers ${throttled} of ${calls} Graph calls and sub-requests = ${((100 * throttled) / calls).toFixed(2)} % (target < 1 %); service cpu ${(run.cpuMs / REQUESTS).toFixed(2)} ms per request`,
    );
  } finally {
    await bench.close();
  }
}
