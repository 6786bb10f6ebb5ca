import { silentLogger } from '../../src/domain/logger';
import { startLocalHost, type LocalHost } from '../../src/runtime/local-host/local-host';
import { ScaledClock } from '../../src/runtime/local-host/virtual-clock';
import type { GraphQuotaOptions, GraphQuotaStats } from '../../src/sandbox/graph';
import { startHelperProcess, type HelperProcess } from './helper-process';
import { countStorageCalls } from './storage-calls';

/** What the targets' process says it started. */
export interface TargetsReady {
  settings: unknown[];
  secrets: Record<string, string>;
  trustedCa: Record<string, string>;
}

/** What the targets' process counts. */
export interface TargetCounts {
  scim: number;
  /** Graph requests, token requests included. */
  graph: number;
  graphTokens: number;
  /** Graph answers and sub-responses, and how many of them were 429. */
  graphCalls: number;
  graphThrottled: number;
  quota?: GraphQuotaStats;
  /** Graph pages of groups/delta and users/delta, outside `$batch`. */
  graphGroupDelta: number;
  graphUserDelta: number;
  cpuMs: number;
}

/** The local host as the benchmarks run it, with its targets and storage in processes of their own. */
export interface BenchHost {
  host: LocalHost;
  targets: HelperProcess<TargetsReady, TargetCounts>;
  storage: HelperProcess<{ connectionString: string }, { cpuMs: number }>;
  calls: ReturnType<typeof countStorageCalls>;
  /**
   * Puts bulk requests on the service's queue from the caller's process (the governance
   * workflow's), so that sending them is not counted as the service's CPU or storage calls.
   */
  sendBulk(messages: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the sandboxes (at `latencyMs`, the Graph one in quota mode when asked) and Azurite
 * in processes of their own, and the local host (queue poller, replay driver) on the real
 * clock, or on one sped up `scale` times, with the catalogues imported.
 */
export async function startBenchHost(options: {
  latencyMs: number;
  scale?: number;
  graphQuota?: GraphQuotaOptions;
  /** Record metrics (default true, as the local host does). */
  metrics?: boolean;
}): Promise<BenchHost> {
  const [targets, storage] = await Promise.all([
    startHelperProcess<TargetsReady, TargetCounts>('service-dependencies.js', [
      String(options.latencyMs),
      JSON.stringify({ storage: false, quota: options.graphQuota }),
    ]),
    startHelperProcess<{ connectionString: string }, { cpuMs: number }>('storage-process.js'),
  ]);
  const calls = countStorageCalls(storage.ready.connectionString);
  const host = await startLocalHost({
    metrics: options.metrics ?? true,
    env: {
      LOG_LEVEL: 'warn',
      PROVISIONING_CONNECTORS: JSON.stringify(targets.ready.settings),
      LOCAL_SECRETS: JSON.stringify(targets.ready.secrets),
    },
    port: 0,
    clock: options.scale === undefined ? 'real' : new ScaledClock(options.scale),
    storage: { kind: 'connectionString', connectionString: storage.ready.connectionString },
    trustedCa: targets.ready.trustedCa,
    queuePollMs: 10,
    // The trigger backs off while the queue is empty (up to a minute in Azure): 1 s here.
    queueMaxPollMs: 1_000,
    logger: silentLogger,
  });
  await importCatalogues(host);
  const caller = await startHelperProcess<object, never>('caller-process.js', [
    storage.ready.connectionString,
  ]);
  return {
    host,
    targets,
    storage,
    calls,
    sendBulk: async (messages) => {
      await caller.ask({ command: 'send', queue: host.services.bulkQueue.name, messages }, 'sent');
    },
    close: async () => {
      calls.stop();
      await host.close();
      await Promise.all([targets.close(), storage.close(), caller.close()]);
    },
  };
}

/**
 * The final state of each instance, in the order given, once the queue poller has started
 * it and it ended. Waits on the driver (no polling in the service's process, whose CPU the
 * benchmarks measure).
 */
export function allFinished(host: LocalHost, instanceIds: string[]) {
  return Promise.all(
    instanceIds.map((id) =>
      host.driver.whenStarted(id).then(() => host.driver.waitFor(id, 600_000)),
    ),
  );
}

async function importCatalogues(host: LocalHost): Promise<void> {
  for (const connector of host.config.connectors) {
    const jobId = `00000000-0000-4000-8000-00000000000${host.config.connectors.indexOf(connector)}`;
    await host.driver.startNew('catalogueImport', `job-${jobId}`, {
      jobId,
      type: connector.kind === 'scim' ? 'Import SCIM groups' : 'Import Directory Groups',
      connector: connector.name,
      overwriteExisting: false,
      trigger: 'api',
    });
    await host.driver.waitFor(`job-${jobId}`, 60_000);
  }
}
