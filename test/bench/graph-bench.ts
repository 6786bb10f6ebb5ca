import { graphConnectorSchema } from '../../src/connectors/graph/graph-settings';
import { createGraphConnector, type GraphConnector } from '../../src/connectors/graph';
import { LocalSecretStore } from '../../src/secrets';
import {
  DEFAULT_SANDBOX_CLIENT,
  startGraphSandbox,
  type GraphSandbox,
} from '../../src/sandbox/graph';

const LATENCY_MS = 5;
const SECRET_NAME = 'graph-bench-secret';

/** Peak resident set size while `action` runs, sampled every 5 ms. */
async function measure<T>(
  action: () => Promise<T>,
): Promise<{ result: T; wallMs: number; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  try {
    const result = await action();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, wallMs: performance.now() - started, peakRssMb: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

function connectorFor(sandbox: GraphSandbox): GraphConnector {
  const settings = graphConnectorSchema.parse({
    name: 'graph-bench',
    kind: 'graph',
    tenantId: sandbox.tenantId,
    clientId: DEFAULT_SANDBOX_CLIENT.clientId,
    clientSecretName: SECRET_NAME,
    upnDomain: 'contoso.example',
    authority: sandbox.authority,
    graphEndpoint: sandbox.graphEndpoint,
  });
  return createGraphConnector(settings, {
    secrets: new LocalSecretStore({ [SECRET_NAME]: DEFAULT_SANDBOX_CLIENT.secret }),
    ca: sandbox.ca,
  });
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/** (1) Import 20,000 groups: requests (target <= 21), wall time, peak RSS. */
async function importBench(
  sandbox: GraphSandbox,
  graph: GraphConnector,
  print: (line: string) => void,
) {
  for (let i = 0; i < 20_000; i++) sandbox.addGroup({ displayName: `Bench group ${i}` });
  const rssBefore = process.memoryUsage().rss / 2 ** 20;
  const before = sandbox.stats.graphRequests;
  const {
    result: count,
    wallMs,
    peakRssMb,
  } = await measure(async () => {
    let seen = 0;
    for await (const group of graph.importGroups()) if (group.id !== '') seen++;
    return seen;
  });
  const requests = sandbox.stats.graphRequests - before;
  print(
    `graph (1) import ${count} groups: ${requests} requests (target <= 21), wall ${fmt(wallMs)}, ` +
      `peak RSS ${peakRssMb.toFixed(0)} MB (${rssBefore.toFixed(0)} MB before; sandbox in the same process)`,
  );
}

/** (2) One account granted 40 groups and revoked 10: write calls with $batch (target <= 3) vs one per change. */
async function membershipBench(
  sandbox: GraphSandbox,
  graph: GraphConnector,
  print: (line: string) => void,
) {
  const upn = 'bench.member@contoso.example';
  const { id } = sandbox.addUser({ userPrincipalName: upn });
  const revoke = Array.from(
    { length: 10 },
    (_, i) => sandbox.addGroup({ displayName: `Revoke ${i}` }).id,
  );
  const grant = Array.from(
    { length: 40 },
    (_, i) => sandbox.addGroup({ displayName: `Grant ${i}` }).id,
  );
  for (const groupId of revoke) sandbox.addMember(groupId, id);
  const account = { id, accountId: upn, enabled: true };
  const current = await graph.readMemberships(account, []);
  sandbox.clearRequests();
  const {
    result: applied,
    wallMs,
    peakRssMb,
  } = await measure(() =>
    graph.writeMemberships(account, { add: grant, remove: revoke }, current.names),
  );
  const envelopes = classifyEnvelopes(sandbox);
  print(
    `graph (2) grant 40 + revoke 10 (${applied.length} changes): ${envelopes.writes} HTTP calls for the writes ` +
      `with $batch (target <= 3) vs ${grant.length + revoke.length} with one call per change; ` +
      `plus ${envelopes.reads} $batch call(s) reading writability first; wall ${fmt(wallMs)}, peak RSS ${peakRssMb.toFixed(0)} MB`,
  );
}

/** Envelopes whose sub-requests write members vs those that read. */
function classifyEnvelopes(sandbox: GraphSandbox): { writes: number; reads: number } {
  let writes = 0;
  let reads = 0;
  const records = sandbox.requests;
  records.forEach((record, index) => {
    if (record.viaBatch === true || record.path !== '/v1.0/$batch') return;
    const first = records.slice(index + 1).find((next) => next.viaBatch === true);
    if (first?.method === 'GET') reads++;
    else writes++;
  });
  return { writes, reads };
}

/** (3) Structure of 500 groups over 32 levels: round trips (target <= 34) and total requests. */
async function structureBench(
  sandbox: GraphSandbox,
  graph: GraphConnector,
  print: (line: string) => void,
) {
  const root = sandbox.addGroup({ displayName: 'Structure root' }).id;
  const levels: string[][] = [[root]];
  for (let n = 1; n < 500; n++) {
    const depth = ((n - 1) % 32) + 1;
    const parents = levels[depth - 1]!;
    const parent = parents[n % parents.length]!;
    const id = sandbox.addGroup({ displayName: `Structure ${depth}.${n}` }).id;
    sandbox.addMember(parent, id);
    (levels[depth] ??= []).push(id);
  }
  const before = { ...sandbox.stats };
  const { result, wallMs, peakRssMb } = await measure(() => graph.readGroupStructure(root));
  const requests = sandbox.stats.graphRequests - before.graphRequests;
  const subRequests = sandbox.stats.batchSubRequests - before.batchSubRequests;
  const depth = Math.max(...result.groups.map((group) => group.depth));
  print(
    `graph (3) structure of ${result.groups.length} groups over ${depth} levels: ${result.stats.roundTrips} ` +
      `round trips on the critical path (target <= 34), ${requests} requests in total ` +
      `(carrying ${subRequests} $batch sub-requests), wall ${fmt(wallMs)} ` +
      `(~${(wallMs / result.stats.roundTrips).toFixed(1)} ms per round trip at ${LATENCY_MS} ms latency), ` +
      `peak RSS ${peakRssMb.toFixed(0)} MB, notices: ${result.notices.length}`,
  );
}

/**
 * (4) Incremental import (groups/delta) of 10 changes in 20,000 groups vs a full read: calls
 * and wall time on the connector (the catalogue's writes are in `npm run bench -- catalogue`).
 */
async function deltaBench(
  sandbox: GraphSandbox,
  graph: GraphConnector,
  print: (line: string) => void,
) {
  const ids: string[] = [];
  for await (const group of graph.importGroups()) ids.push(group.id);
  const cursor = await graph.groupChanges.latestCursor();
  for (let i = 0; i < 4; i++) sandbox.addGroup({ displayName: `Delta added ${i}` });
  ids
    .slice(0, 3)
    .forEach((id, i) => sandbox.updateGroup(id, { displayName: `Delta renamed ${i}` }));
  for (const id of ids.slice(3, 6)) sandbox.deleteGroup(id);

  let before = sandbox.stats.graphRequests;
  const full = await measure(async () => {
    let seen = 0;
    for await (const group of graph.importGroups()) if (group.id !== '') seen++;
    return seen;
  });
  const fullCalls = sandbox.stats.graphRequests - before;
  before = sandbox.stats.graphRequests;
  const incremental = await measure(async () => {
    let changes = 0;
    for await (const page of graph.groupChanges.changesSince(cursor))
      changes += page.changes.length;
    return changes;
  });
  const incrementalCalls = sandbox.stats.graphRequests - before;
  print(
    `graph (4) import of 10 changes in ${full.result} groups: incremental (groups/delta) ${incrementalCalls} calls, ` +
      `${incremental.result} changes, wall ${fmt(incremental.wallMs)}; full ${fullCalls} calls, wall ${fmt(full.wallMs)}`,
  );
}

/**
 * The three Graph numbers against the sandbox with 5 ms latency (npm run bench -- graph).
 *
 * @example
 * await runGraphBench((line) => process.stdout.write(`${line}\n`));
 */
export async function runGraphBench(print: (line: string) => void): Promise<void> {
  const sandbox = await startGraphSandbox({ latencyMs: LATENCY_MS });
  const graph = connectorFor(sandbox);
  try {
    await graph.checkStatus();
    await importBench(sandbox, graph, print);
    await membershipBench(sandbox, graph, print);
    await structureBench(sandbox, graph, print);
    await deltaBench(sandbox, graph, print);
  } finally {
    await graph.close();
    await sandbox.close();
  }
}
