import { startAzurite } from '../../src/runtime/local-host/azurite';
import { startSandboxConnectors } from '../../src/runtime/sandbox-connectors';
import type { GraphQuotaOptions } from '../../src/sandbox/graph';
import {
  makeGraphOutsideChanges,
  seedDriftTargets,
  type DriftShape,
  type SeededTarget,
} from './drift-target';

/**
 * The benchmarks' dependencies in a process of their own, as they would be in Azure (remote
 * targets, remote storage): both sandboxes and Azurite, so that the benchmark's own figures
 * (CPU, heap) are the service's. Talks to the benchmark over IPC: the settings at start,
 * request counts on demand, and the drift benchmark's seeding and outside changes. The
 * service and quota benchmarks run Azurite in a process of their own (`storage: false`).
 */
async function main(): Promise<void> {
  const latencyMs = Number(process.argv[2] ?? 20);
  // `storage: false`: the targets alone (a benchmark that runs Azurite apart, to measure its
  // CPU on its own); `quota`: the Graph sandbox's quota mode.
  const options = JSON.parse(process.argv[3] ?? '{}') as {
    storage?: boolean;
    quota?: GraphQuotaOptions;
  };
  const sandboxes = await startSandboxConnectors({ latencyMs });
  sandboxes.graph.setQuota(options.quota);
  const azurite = options.storage === false ? undefined : await startAzurite();
  let seeded: { shape: DriftShape; graph: SeededTarget } | undefined;
  const graphPath = (prefix: string) =>
    sandboxes.graph.requests.filter((r) => r.viaBatch !== true && r.path.startsWith(prefix)).length;
  const counts = () => ({
    scim: sandboxes.scim.requests.length,
    graph: sandboxes.graph.stats.graphRequests + sandboxes.graph.stats.tokenRequests,
    graphTokens: sandboxes.graph.stats.tokenRequests,
    /** Graph answers and sub-responses, and how many of them were 429. */
    graphCalls: sandboxes.graph.requests.length,
    graphThrottled: sandboxes.graph.requests.filter((request) => request.status === 429).length,
    quota: sandboxes.graph.quotaStats(),
    graphGroupDelta: graphPath('/v1.0/groups/delta'),
    graphUserDelta: graphPath('/v1.0/users/delta'),
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  });
  process.on('message', (message: { command: string; shape?: DriftShape }) => {
    if (message.command === 'counts') process.send?.({ counts: counts() });
    if (message.command === 'seedDrift' && message.shape !== undefined) {
      const targets = seedDriftTargets(sandboxes, message.shape);
      seeded = { shape: message.shape, graph: targets.graph };
      process.send?.({ seeded: targets });
    }
    if (message.command === 'graphOutsideChanges' && seeded !== undefined) {
      void makeGraphOutsideChanges(sandboxes, seeded.shape, seeded.graph).then(() =>
        process.send?.({ changed: true }),
      );
    }
    // The quota as it is at the start of a run (the host's start-up let it refill).
    if (message.command === 'reset quota') {
      sandboxes.graph.setQuota(options.quota);
      process.send?.({ done: true });
    }
    if (message.command === 'close') {
      void Promise.all([sandboxes.close(), azurite?.close()]).then(() => process.exit(0));
    }
  });
  process.send?.({
    ready: {
      settings: sandboxes.settings,
      secrets: sandboxes.secrets,
      trustedCa: sandboxes.trustedCa,
      ...(azurite === undefined ? {} : { connectionString: azurite.connectionString }),
    },
  });
}

void main();
