import { loadavg } from 'node:os';
import { HISTORY_EVENT } from '../../src/runtime/local-host/history-events';
import type { LocalHost } from '../../src/runtime/local-host/local-host';
import { requestInstanceId } from '../../src/workflows/names';
import { allFinished, startBenchHost } from './bench-host';
import { startBenchContext, startBenchTracing } from './bench-tracing';
import { startIntakeTimeline } from './intake-timeline';
import { measure } from './measure';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const LATENCY_MS = 20;
const GROUPS = ['Engineering', 'Sales', 'Finance'];
/**
 * `off` measures the service without telemetry, `metrics` with metrics only, `context` with
 * metrics and OpenTelemetry's async context manager but no tracer: the differences are what
 * telemetry costs, how much of it is tracing, and how much of that is context propagation.
 */
const TELEMETRY = process.env.BENCH_TELEMETRY ?? 'on';
/** The share of requests traced when telemetry is on (1: every one, as the service is set up). */
const TRACE_SAMPLING = Number(process.env.BENCH_TRACE_SAMPLING ?? 1);

/**
 * Issue 4 benchmark: 1,000 requests through the bulk queue (create + grant of 3 groups),
 * half per connector, sandboxes at 20 ms latency, through the local host (queue poller,
 * replay driver, real clock). The sandboxes and Azurite each run in a process of their own,
 * as remote targets and storage would, so that each one's CPU is its own. The group
 * catalogues are imported first, so groups are found without target calls. The requests
 * are put on the queue from a process of their own too, the governance workflow's. Storage
 * calls are counted as the service sends them (one HTTP request each, a transaction
 * included).
 * With telemetry (the default; `BENCH_TELEMETRY=off` to leave it out, `metrics` for metrics
 * only) the service records its metrics and traces every request through the privacy
 * processor into an exporter that serialises and discards (issue 19: its cost);
 * `BENCH_TRACE_SAMPLING=0.1` traces one request in ten, as a sampled deployment would.
 */
export async function runServiceBench(print: (line: string) => void): Promise<void> {
  const tracing = TELEMETRY === 'on' ? startBenchTracing(TRACE_SAMPLING) : undefined;
  const contextOnly = TELEMETRY === 'context' ? startBenchContext() : undefined;
  const bench = await startBenchHost({ latencyMs: LATENCY_MS, metrics: TELEMETRY !== 'off' });
  const { host, targets, storage, calls } = bench;
  try {
    const before = await targets.counts();
    const storageBefore = await storage.counts();
    calls.reset();
    const ids = Array.from({ length: REQUESTS }, (_, i) => `bench-${i}`);
    const load = loadavg()[0]!;

    const messages = ids.map((requestId, i) => {
      const scim = i % 2 === 0;
      return {
        requestId,
        connector: scim ? 'scim-sandbox' : 'graph-sandbox',
        account: {
          accountId: scim ? `bench.user${i}` : `bench.user${i}@contoso.example`,
          displayName: `Bench User ${i}`,
        },
        actions: [{ type: 'create' }, { type: 'grant', groups: GROUPS }],
      };
    });

    const timeline =
      process.env.BENCH_TIMELINE === '1' ? startIntakeTimeline(host, targets) : undefined;
    const run = await measure(async () => {
      const sending = performance.now();
      await bench.sendBulk(messages);
      timeline?.sent(performance.now() - sending);
      return allFinished(host, ids.map(requestInstanceId));
    });

    for (const line of timeline?.stop() ?? []) print(`  timeline ${line}`);
    const after = await targets.counts();
    const storageAfter = await storage.counts();
    const statuses = run.value.map((state) => (state.output as { status?: string } | null)?.status);
    const succeeded = statuses.filter((status) => status === 'succeeded').length;
    const scimCalls = after.scim - before.scim;
    const graphCalls = after.graph - after.graphTokens - (before.graph - before.graphTokens);
    const tokenCalls = after.graphTokens - before.graphTokens;
    const perTarget = REQUESTS / 2;
    const concurrency = host.config.connectors[0]!.concurrency;
    const events = orchestrationEvents(host, ids);
    // The procedures' minimum: SCIM create 1 + its read back by id (a 201 is no proof the
    // server stored the account) + one membership read of the 3 groups + 3 PATCH + one read
    // back; Graph create 1 + 1 $batch of 3 adds + 1 read back (token not counted).
    const minimum = { scim: 7, graph: 3 };
    // The issue's bound: all outbound calls / per-target concurrency x latency. Stricter: the
    // busier target alone (both targets are served at the same time).
    const bound = ((scimCalls + graphCalls) / concurrency) * LATENCY_MS;
    const strictBound = (Math.max(scimCalls, graphCalls) / concurrency) * LATENCY_MS;
    const storageCpuMs = storageAfter.cpuMs - storageBefore.cpuMs;
    print(
      `service: ${REQUESTS} requests via the bulk queue (create + grant 3 groups), ${LATENCY_MS} ms target latency; targets and Azurite each in a separate process; load average ${load.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`,
    );
    print(
      `  succeeded ${succeeded}/${REQUESTS}; wall ${(run.wallMs / 1000).toFixed(1)} s; ${(REQUESTS / (run.wallMs / 1000)).toFixed(1)} requests/s`,
    );
    print(
      `  cpu per request: service ${(run.cpuMs / REQUESTS).toFixed(2)} ms (${(run.cpuMs / 1000).toFixed(1)} s), Azurite ${(storageCpuMs / REQUESTS).toFixed(2)} ms, targets ${((after.cpuMs - before.cpuMs) / REQUESTS).toFixed(2)} ms`,
    );
    print(
      `  outbound calls per request: scim ${(scimCalls / perTarget).toFixed(2)} (minimum ${minimum.scim}), graph ${(graphCalls / perTarget).toFixed(2)} (minimum ${minimum.graph}; plus ${tokenCalls} token requests in all)`,
    );
    // The requests are sent from the caller's process: every call counted is the service's.
    print(
      `  storage calls per request (the service's): ${((calls.counts.table + calls.counts.queue) / REQUESTS).toFixed(2)} (table ${(calls.counts.table / REQUESTS).toFixed(2)}, queue ${(calls.counts.queue / REQUESTS).toFixed(2)}): ${describeKinds(calls.counts.byKind)}`,
    );
    print(
      `  orchestration per request: ${events.scim.activities.toFixed(2)} activities and ${events.scim.events.toFixed(1)} history events (scim), ${events.graph.activities.toFixed(2)} and ${events.graph.events.toFixed(1)} (graph); ${events.timers.toFixed(2)} timers`,
    );
    print(
      `  lower bound (all ${scimCalls + graphCalls} calls / concurrency ${concurrency} x ${LATENCY_MS} ms): ${(bound / 1000).toFixed(1)} s; ratio ${(run.wallMs / bound).toFixed(2)} (target <= 2)`,
    );
    print(
      `  stricter bound (busier target alone): ${(strictBound / 1000).toFixed(1)} s; ratio ${(run.wallMs / strictBound).toFixed(2)} (target <= 1.5)`,
    );
    print(
      `  service peak RSS ${run.peakRssMb.toFixed(0)} MB (growth ${run.rssGrowthMb.toFixed(0)} MB)`,
    );
    if (tracing === undefined) {
      print(
        `  telemetry: ${TELEMETRY === 'off' ? 'off' : TELEMETRY === 'context' ? "metrics and OpenTelemetry's async context, no tracing" : 'metrics only, no tracing'}`,
      );
    } else {
      const metricsText = await (
        await fetch(`${host.url}/api/metrics`, { headers: { 'x-functions-key': host.apiKey } })
      ).text();
      const exported = await tracing.exported();
      print(
        `  telemetry on (${TRACE_SAMPLING === 1 ? 'every request traced' : `${TRACE_SAMPLING * 100} % of requests traced`}): ${exported.spans} spans exported (${(exported.bytes / 2 ** 20).toFixed(1)} MB serialised), metrics text ${(metricsText.length / 1024).toFixed(0)} KiB`,
      );
    }
  } finally {
    await bench.close();
    await tracing?.close();
    await contextOnly?.close();
  }
}

function describeKinds(byKind: Record<string, number>): string {
  return Object.entries(byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${kind} ${(count / REQUESTS).toFixed(2)}`)
    .join(', ');
}

/** Activities and history events per request of each connector, and durable timers per request. */
function orchestrationEvents(host: LocalHost, ids: string[]) {
  const totals = {
    scim: { activities: 0, events: 0 },
    graph: { activities: 0, events: 0 },
    timers: 0,
  };
  ids.forEach((id, i) => {
    const history = host.driver.history(requestInstanceId(id));
    const side = i % 2 === 0 ? totals.scim : totals.graph;
    side.events += history.length;
    side.activities += history.filter((e) => e.EventType === HISTORY_EVENT.TaskScheduled).length;
    totals.timers += history.filter((e) => e.EventType === HISTORY_EVENT.TimerCreated).length;
  });
  const half = ids.length / 2;
  return {
    scim: { activities: totals.scim.activities / half, events: totals.scim.events / half },
    graph: { activities: totals.graph.activities / half, events: totals.graph.events / half },
    timers: totals.timers / ids.length,
  };
}
