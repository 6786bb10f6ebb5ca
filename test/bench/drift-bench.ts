import { connectorKind } from '../../src/connectors/connector-kinds';
import type { AccountRecord } from '../../src/domain/account-record';
import { silentLogger } from '../../src/domain/logger';
import type { ReconciliationResult } from '../../src/domain/reconciliation-result';
import { startLocalHost, type LocalHost } from '../../src/runtime/local-host/local-host';
import type { JobReport } from '../../src/workflows/orchestrators/job-orchestrators';
import { jobInstanceId, ORCHESTRATIONS } from '../../src/workflows/names';
import { graphTestClient } from '../integration/sandbox/graph-test-client';

/** The shape; BENCH_DRIFT_SCALE (0-1] shrinks it for a quick look. */
const SCALE = Number(process.env.BENCH_DRIFT_SCALE ?? 1);
const GROUPS = Math.round(1_000 * SCALE);
const MEMBERS = 50;
const ACCOUNTS = Math.round(20_000 * SCALE);
/** Links written to the service's table at once. */
const PARALLEL_WRITES = 64;

type Print = (line: string) => void;

/**
 * Issue 18 benchmark (`npm run bench -- drift`): on each sandbox, 1,000 managed groups of 50
 * members and 20,000 linked accounts, every membership assigned by the service (a clean
 * target: a run finds nothing). One reconciliation is timed; its requests are counted
 * against the budget and its heap growth measured. On Graph, a second run after 10
 * outside changes is counted too. Sandboxes, Azurite and the service share this process.
 */
export async function runDriftBench(print: Print): Promise<void> {
  const host = await startLocalHost({
    env: { LOG_LEVEL: 'warn' },
    port: 0,
    clock: 'real',
    logger: silentLogger,
  });
  try {
    print(
      `drift: ${GROUPS} managed groups x ${MEMBERS} members, ${ACCOUNTS} linked accounts per connector`,
    );
    await scimBench(host, print);
    await graphBench(host, print);
  } finally {
    await host.close();
  }
}

/** Member `k` of group `g`: every account is in two or three groups. */
const memberOf = (g: number, k: number) => (g * MEMBERS + k) % ACCOUNTS;

async function scimBench(host: LocalHost, print: Print): Promise<void> {
  const scim = host.sandboxes!.scim;
  const users = scim.seedUsers(
    Array.from({ length: ACCOUNTS }, (_, i) => ({ userName: `drift.user${i}`, active: true })),
  );
  // This sandbox names members by userName (its connector's memberValue: accountId).
  const groups = scim.seedGroups(
    Array.from({ length: GROUPS }, (_, g) => ({
      displayName: `Drift group ${g}`,
      members: Array.from({ length: MEMBERS }, (_, k) => users[memberOf(g, k)]!.userName),
    })),
  );
  await importCatalogue(host, 'scim-sandbox');
  await writeLinks(
    host,
    'scim-sandbox',
    users.map((u) => ({ accountId: u.userName, targetId: u.id })),
    groups.map((g) => g.id),
  );
  const settings = host.config.connectors.find((c) => c.name === 'scim-sandbox');
  const pageSize =
    settings !== undefined && 'pageSize' in settings ? Number(settings.pageSize) : 100;
  const userPages = Math.ceil((ACCOUNTS + 3) / pageSize);
  const before = scim.requests.length;
  const run = await timed(() => reconcile(host, 'scim-sandbox'));
  const requests = scim.requests.length - before;
  // One page of members per group (50 fit in one answer) + 2 per group, + the user pages.
  const budget = GROUPS * (1 + 2) + userPages;
  print(
    `  scim full run: ${requests} requests (budget: member pages + 2 per group + ${userPages} user pages = ${budget}), ` +
      `wall ${(run.wallMs / 1000).toFixed(1)} s, heap growth ${run.heapGrowthMb.toFixed(0)} MB (target < 100), ` +
      `${describe(run.value)}`,
  );
}

async function graphBench(host: LocalHost, print: Print): Promise<void> {
  const { graph, handChanges } = host.sandboxes!;
  const users = Array.from({ length: ACCOUNTS }, (_, i) => {
    const upn = `drift.user${i}@contoso.example`;
    return { accountId: upn, targetId: graph.addUser({ userPrincipalName: upn }).id };
  });
  const groups = Array.from(
    { length: GROUPS },
    (_, g) => graph.addGroup({ displayName: `Drift group ${g}` }).id,
  );
  groups.forEach((groupId, g) => {
    for (let k = 0; k < MEMBERS; k++) graph.addMember(groupId, users[memberOf(g, k)]!.targetId);
  });
  await importCatalogue(host, 'graph-sandbox');
  await writeLinks(host, 'graph-sandbox', users, groups);

  // The budget: the pages of groups/delta (groups with their members) and of
  // users/delta, + 5 other requests (the $batch of second reads among them).
  graph.clearRequests();
  const before = graph.stats.graphRequests;
  const first = await timed(() => reconcile(host, 'graph-sandbox'));
  const firstRequests = graph.stats.graphRequests - before;
  const direct = graph.requests.filter((r) => r.viaBatch !== true);
  const pages = (path: string) => direct.filter((r) => r.path.startsWith(path)).length;
  const groupPages = pages('/v1.0/groups/delta');
  const userPages = pages('/v1.0/users/delta');
  print(
    `  graph first run: ${firstRequests} requests: ${groupPages} groups/delta pages, ${userPages} users/delta pages, ` +
      `${firstRequests - groupPages - userPages} others (target <= 5); ` +
      `wall ${(first.wallMs / 1000).toFixed(1)} s, heap growth ${first.heapGrowthMb.toFixed(0)} MB, ${describe(first.value)}`,
  );

  const portal = await graphTestClient(graph, handChanges.graphPortal);
  try {
    for (let i = 0; i < 5; i++) {
      await portal.call(
        'POST',
        `/groups/${groups[i]!}/members/$ref`,
        portal.ref(users[memberOf(i + 500, 0)]!.targetId),
      );
    }
    for (let i = 5; i < 8; i++) {
      await portal.call(
        'DELETE',
        `/groups/${groups[i]!}/members/${users[memberOf(i, 0)]!.targetId}/$ref`,
      );
    }
    for (const i of [8, 9]) {
      await portal.call('PATCH', `/users/${users[i * 7]!.targetId}`, { accountEnabled: false });
    }
  } finally {
    await portal.close();
  }
  // Past the settle window of anything the runs touched: the second run waits for none.
  const again = graph.stats.graphRequests;
  const second = await timed(() => reconcile(host, 'graph-sandbox'));
  print(
    `  graph incremental run after 10 outside changes: ${graph.stats.graphRequests - again} requests (target <= 3), ` +
      `wall ${(second.wallMs / 1000).toFixed(1)} s, ${describe(second.value)}`,
  );
}

function describe(result: ReconciliationResult): string {
  const found = Object.values(result.found).reduce((sum, n) => sum + n, 0);
  return `${result.mode}, ${result.complete ? 'complete' : 'INCOMPLETE'}, ${found} new findings, ${result.read.groups} groups and ${result.read.accounts} accounts read`;
}

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

async function importCatalogue(host: LocalHost, connector: string): Promise<void> {
  const jobId = crypto.randomUUID();
  const settings = host.config.connectors.find((c) => c.name === connector)!;
  await host.driver.startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(jobId), {
    jobId,
    type: connectorKind(settings).catalogueJobType,
    connector,
    trigger: 'api',
  });
  await host.driver.waitFor(jobInstanceId(jobId), 600_000);
}

/** The service's records of accounts it linked and whose memberships it assigned. */
async function writeLinks(
  host: LocalHost,
  connector: string,
  users: { accountId: string; targetId: string }[],
  groups: string[],
): Promise<void> {
  const assigned = users.map((): string[] => []);
  groups.forEach((groupId, g) => {
    for (let k = 0; k < MEMBERS; k++) assigned[memberOf(g, k)]!.push(groupId);
  });
  const linkedAt = new Date(Date.now() - 3_600_000).toISOString();
  for (let start = 0; start < users.length; start += PARALLEL_WRITES) {
    await Promise.all(
      users.slice(start, start + PARALLEL_WRITES).map((user, i) => {
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
        return host.services.links.put(record);
      }),
    );
  }
}

async function reconcile(host: LocalHost, connector: string): Promise<ReconciliationResult> {
  const jobId = crypto.randomUUID();
  const settings = host.config.connectors.find((c) => c.name === connector)!;
  await host.driver.startNew(ORCHESTRATIONS.reconciliation, jobInstanceId(jobId), {
    jobId,
    type: connectorKind(settings).reconciliationJobType!,
    connector,
    trigger: 'api',
  });
  const job = (await host.driver.waitFor(jobInstanceId(jobId), 3_600_000)).output as JobReport;
  if (job.status !== 'succeeded')
    throw new Error(`reconciliation of ${connector}: ${JSON.stringify(job.error)}`);
  return job.result as ReconciliationResult;
}
