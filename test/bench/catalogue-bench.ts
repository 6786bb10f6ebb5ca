import { loadConfig } from '../../src/config/app-config';
import { connectorSettingsKinds } from '../../src/connectors/connector-kinds';
import { silentLogger } from '../../src/domain/logger';
import {
  startSandboxConnectors,
  type SandboxConnectors,
} from '../../src/runtime/sandbox-connectors';
import { startServiceRuntime, type ServiceRuntime } from '../../src/runtime/service-runtime';
import { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { jobInstanceId, ORCHESTRATIONS } from '../../src/workflows/names';
import type { JobInput, JobReport } from '../../src/workflows/orchestrators/job-orchestrators';

const GRAPH = 'graph-sandbox';

/** The service on its sandboxes and an in-process Azurite, as the local host runs it. */
interface ServiceBench {
  runtime: ServiceRuntime;
  sandboxes: SandboxConnectors;
}

async function startServiceBench(): Promise<ServiceBench & { close(): Promise<void> }> {
  const sandboxes = await startSandboxConnectors();
  const runtime = await startServiceRuntime({
    config: { ...loadConfig({}, connectorSettingsKinds()), connectors: sandboxes.settings },
    logger: silentLogger,
    secrets: new LocalSecretStore({ ...sandboxes.secrets }),
    trustedCa: sandboxes.trustedCa,
  });
  return {
    runtime,
    sandboxes,
    close: async () => {
      await runtime.close();
      await sandboxes.close();
    },
  };
}

const GROUPS = 20_000;

/** One catalogue import job through the production orchestrator, activity and Azurite. */
async function importJob(
  bench: ServiceBench,
  jobId: string,
  incremental: boolean,
): Promise<{ report: JobReport; wallMs: number; calls: number }> {
  const input: JobInput = {
    jobId,
    type: 'Import Directory Groups',
    connector: GRAPH,
    incremental,
    overwriteExisting: true,
    trigger: 'api',
  };
  const before = bench.sandboxes.graph.stats.graphRequests;
  const started = performance.now();
  await bench.runtime.driver.startNew(ORCHESTRATIONS.catalogueImport, jobInstanceId(jobId), input);
  const state = await bench.runtime.driver.waitFor(jobInstanceId(jobId), 600_000);
  return {
    report: state.output as JobReport,
    wallMs: performance.now() - started,
    calls: bench.sandboxes.graph.stats.graphRequests - before,
  };
}

/**
 * Issue 14's figures for incremental imports, end to end (`npm run bench -- catalogue`): a
 * catalogue import job of 20,000 Graph groups in full, then of 10 changes (4 added, 3
 * renamed, 3 deleted) incremental and in full again: Graph calls and wall time, with the
 * role catalogue in an in-process Azurite.
 */
export async function runCatalogueBench(print: (line: string) => void): Promise<void> {
  const bench = await startServiceBench();
  try {
    const graph = bench.sandboxes.graph;
    const ids = Array.from(
      { length: GROUPS },
      (_, i) => graph.addGroup({ displayName: `Catalogue bench ${i}` }).id,
    );
    const first = await importJob(bench, 'bench-full-1', false);
    print(
      `catalogue: first full import of ${GROUPS + 7} groups: ${first.calls} Graph calls, wall ${first.wallMs.toFixed(0)} ms`,
    );
    const change = (round: number) => {
      for (let i = 0; i < 4; i++) graph.addGroup({ displayName: `Added ${round}.${i}` });
      ids
        .slice(round * 10, round * 10 + 3)
        .forEach((id, i) => graph.updateGroup(id, { displayName: `Renamed ${round}.${i}` }));
      for (const id of ids.slice(round * 10 + 3, round * 10 + 6)) graph.deleteGroup(id);
    };
    change(1);
    const incremental = await importJob(bench, 'bench-incremental', true);
    change(2);
    const full = await importJob(bench, 'bench-full-2', false);
    const describe = (run: typeof full) =>
      `${run.calls} Graph calls, wall ${run.wallMs.toFixed(0)} ms (${JSON.stringify(run.report.result)})`;
    print(`catalogue: 10 changes, incremental import: ${describe(incremental)}`);
    print(`catalogue: 10 changes, full import: ${describe(full)}`);
  } finally {
    await bench.close();
  }
}
