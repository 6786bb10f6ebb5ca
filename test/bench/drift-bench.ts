import { connectorKind } from '../../src/connectors/connector-kinds';
import type { AccountRecord } from '../../src/domain/account-record';
import { silentLogger } from '../../src/domain/logger';
import type { ReconciliationResult } from '../../src/domain/reconciliation-result';
import { startLocalHost, type LocalHost } from '../../src/runtime/local-host/local-host';
import { jobInstanceId, ORCHESTRATIONS } from '../../src/workflows/names';
import type { JobReport } from '../../src/workflows/orchestrators/job-orchestrators';
import type { TargetCounts, TargetsReady } from './bench-host';
import { startHelperProcess } from './helper-process';

/** Forks the dependencies' process (sandboxes at `latencyMs`, Azurite) and waits for its settings. */
const startDependencies = (latencyMs: number) =>
  startHelperProcess<TargetsReady & { connectionString: string }, TargetCounts>(
    'service-dependencies.js',
    [String(latencyMs)],
  );
import { memberOf, type DriftShape, type SeededTarget } from './drift-target';

/** The shape; BENCH_DRIFT_SCALE (0-1] shrinks it for a quick look. */
const SCALE = Number(process.env.BENCH_DRIFT_SCALE ?? 1);
const SHAPE: DriftShape = {
  groups: Math.round(1_000 * SCALE),
  members: 50,
  accounts: Math.round(20_000 * SCALE),
};
/** Target latency: a near target, so that the service's own work shows. */
const LATENCY_MS = 2;
/** Links written to the service's table at once. */
const PARALLEL_WRITES = 64;

type Print = (line: string) => void;
type Dependencies = Awaited<ReturnType<typeof startDependencies>>;

/**
 * Issue 18 benchmark (`npm run bench -- drift`): on each sandbox, 1,000 managed groups of 50
 * members and 20,000 linked accounts, every membership assigned by the service (a clean
 * target). One reconciliation is timed, its requests counted against the budget and
 * the service's heap growth measured; on Graph, a second run after 10 outside changes is
 * counted too. The sandboxes and Azurite run in a process of their own, as remote targets
 * and storage would, so the heap is the service's alone.
 */
export async function runDriftBench(print: Print): Promise<void> {
  const deps = await startDependencies(LATENCY_MS);
  const host = await startLocalHost({
    env: {
      LOG_LEVEL: 'warn',
      PROVISIONING_CONNECTORS: JSON.stringify(deps.ready.settings),
      LOCAL_SECRETS: JSON.stringify(deps.ready.secrets),
    },
    port: 0,
    clock: 'real',
    storage: { kind: 'connectionString', connectionString: deps.ready.connectionString },
    trustedCa: deps.ready.trustedCa,
    logger: silentLogger,
  });
  try {
    print(
      `drift: ${SHAPE.groups} managed groups x ${SHAPE.members} members, ${SHAPE.accounts} linked accounts per connector; ` +
        `targets (${LATENCY_MS} ms latency) and Azurite in a separate process`,
    );
    const seeded = await deps.ask<{ scim: SeededTarget; graph: SeededTarget }>(
      { command: 'seedDrift', shape: SHAPE },
      'seeded',
    );
    await scimBench(host, deps, seeded.scim, print);
    await graphBench(host, deps, seeded.graph, print);
  } finally {
    await host.close();
    await deps.close();
  }
}

async function scimBench(host: LocalHost, deps: Dependencies, seeded: SeededTarget, print: Print) {
  await importCatalogue(host, 'scim-sandbox');
  await writeLinks(host, 'scim-sandbox', seeded);
  const settings = host.config.connectors.find((c) => c.name === 'scim-sandbox');
  const pageSize =
    settings !== undefined && 'pageSize' in settings ? Number(settings.pageSize) : 100;
  const userPages = Math.ceil((SHAPE.accounts + 3) / pageSize);
  const before = await deps.counts();
  const run = await timed(() => reconcile(host, 'scim-sandbox'));
  const requests = (await deps.counts()).scim - before.scim;
  // Every managed group's 50 members fit one answer: one member page per group.
  const budget = SHAPE.groups * (1 + 2) + userPages;
  print(
    `  scim full run: ${requests} requests (budget: member pages + 2 per group + ${userPages} user pages = ${budget}); ` +
      `wall ${seconds(run.wallMs)}, service heap growth ${run.heapGrowthMb.toFixed(0)} MB (target < 100); ${describe(run.value)}`,
  );
}

async function graphBench(host: LocalHost, deps: Dependencies, seeded: SeededTarget, print: Print) {
  await importCatalogue(host, 'graph-sandbox');
  await writeLinks(host, 'graph-sandbox', seeded);
  // The budget: the pages of groups/delta (groups with their members) and of
  // users/delta, + 5 other requests (the $batch of second reads among them).
  const before = await deps.counts();
  const first = await timed(() => reconcile(host, 'graph-sandbox'));
  const after = await deps.counts();
  const requests = after.graph - before.graph;
  const groupPages = after.graphGroupDelta - before.graphGroupDelta;
  const userPages = after.graphUserDelta - before.graphUserDelta;
  print(
    `  graph first run: ${requests} requests: ${groupPages} groups/delta pages, ${userPages} users/delta pages, ` +
      `${requests - groupPages - userPages} others, tokens included (target <= 5); wall ${seconds(first.wallMs)}, ` +
      `service heap growth ${first.heapGrowthMb.toFixed(0)} MB; ${describe(first.value)}`,
  );

  await deps.ask({ command: 'graphOutsideChanges' }, 'changed');
  const again = await deps.counts();
  const second = await timed(() => reconcile(host, 'graph-sandbox'));
  print(
    `  graph incremental run after 10 outside changes: ${(await deps.counts()).graph - again.graph} requests (target <= 3); ` +
      `wall ${seconds(second.wallMs)}; ${describe(second.value)}`,
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function describe(result: ReconciliationResult): string {
  const found = Object.values(result.found).reduce((sum, n) => sum + n, 0);
  return `${result.mode}, ${result.complete ? 'complete' : 'INCOMPLETE'}, ${found} new findings, ${result.read.groups} groups and ${result.read.accounts} accounts read`;
}

/** Wall time and the growth of the heap in use (peak, sampled every 50 ms; after a GC with --expose-gc). */
async function timed<T>(work: () => Promise<T>) {
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  let peak = heap;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 50);
  const started = performance.now();
  try {
    const value = await work();
    return { value, wallMs: performance.now() - started, heapGrowthMb: (peak - heap) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

async function runJob(host: LocalHost, name: string, input: Record<string, unknown>) {
  const jobId = crypto.randomUUID();
  await host.driver.startNew(name, jobInstanceId(jobId), { jobId, trigger: 'api', ...input });
  const job = (await host.driver.waitFor(jobInstanceId(jobId), 3_600_000)).output as JobReport;
  if (job.status !== 'succeeded') throw new Error(`${name}: ${JSON.stringify(job.error)}`);
  return job.result;
}

async function importCatalogue(host: LocalHost, connector: string): Promise<void> {
  const settings = host.config.connectors.find((c) => c.name === connector)!;
  await runJob(host, ORCHESTRATIONS.catalogueImport, {
    type: connectorKind(settings).catalogueJobType,
    connector,
  });
}

async function reconcile(host: LocalHost, connector: string): Promise<ReconciliationResult> {
  const settings = host.config.connectors.find((c) => c.name === connector)!;
  return (await runJob(host, ORCHESTRATIONS.reconciliation, {
    type: connectorKind(settings).reconciliationJobType,
    connector,
  })) as ReconciliationResult;
}

/** The service's records of the accounts it linked and the memberships it assigned. */
async function writeLinks(host: LocalHost, connector: string, seeded: SeededTarget) {
  const assigned = seeded.users.map((): string[] => []);
  seeded.groups.forEach((groupId, g) => {
    for (let k = 0; k < SHAPE.members; k++) assigned[memberOf(SHAPE, g, k)]!.push(groupId);
  });
  const linkedAt = new Date(Date.now() - 3_600_000).toISOString();
  for (let start = 0; start < seeded.users.length; start += PARALLEL_WRITES) {
    await Promise.all(
      seeded.users.slice(start, start + PARALLEL_WRITES).map((user, i) => {
        const record: AccountRecord = {
          connector,
          accountId: user.accountId,
          targetId: user.targetId,
          linkedAt,
          createdAt: linkedAt,
          enabled: true,
          enabledAt: linkedAt,
          assignedGroups: assigned[start + i]!,
        };
        return host.services.accounts.put(record);
      }),
    );
  }
}
