import { join } from 'node:path';
import type { Meter } from '@opentelemetry/api';
import type { AppConfig, StorageConnection } from '../config/app-config';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';
import { createActivityHandlers } from '../workflows/activities';
import type { OrchestrationClient } from '../workflows/orchestration-client';
import { ORCHESTRATORS } from '../workflows/orchestrators';
import type { WorkflowServices } from '../workflows/workflow-services';
import { buildServices } from './build-services';
import type { ConnectorRegistry } from '../connectors/connector-registry';
import { tableClient } from '../store/storage-clients';
import { startAzurite } from './local-host/azurite';
import { DurableWriteIntents } from './local-host/durable-write-intents';
import { OrchestrationDriver } from './local-host/orchestration-driver';
import { TableHistoryStore } from './local-host/table-history-store';
import { flowingClock, REAL_CLOCK, type DriverClock } from './local-host/virtual-clock';

/** The local host's orchestration histories, beside the service's tables in its Azurite. */
export const HISTORY_TABLE = 'LocalHostOrchestrations';

export interface ServiceRuntimeOptions {
  config: AppConfig;
  logger: Logger;
  secrets: SecretStore;
  /** Storage to use; default an in-process Azurite, in memory unless `stateDir` is given. */
  storage?: StorageConnection;
  /**
   * A folder that keeps the state across restarts (the local host's `.local-host`): the
   * in-process Azurite's data and, in one of its tables, the orchestration histories. At
   * start, every instance saved there answers again and every unfinished one resumes.
   * Ignored when `storage` is given.
   */
  stateDir?: string;
  /** CA certificates to trust by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** A registry to share (the CLI's); default one built from the config. */
  registry?: ConnectorRegistry;
  clock?: DriverClock;
  /** Activities run at once (default 64): above the connectors' own per-target limits. */
  maxConcurrentActivities?: number;
  /** The meter the service records on (the local host's own); default the global one. */
  meter?: Meter;
}

export interface ServiceRuntime {
  services: WorkflowServices;
  driver: OrchestrationDriver;
  /** True when the state lives in an in-process Azurite and is lost at exit. */
  ephemeralStorage: boolean;
  /** The storage the services use (the in-process Azurite's, unless one was given). */
  storage: StorageConnection;
  /** Instances found in `stateDir` at start, and how many of them were unfinished and resumed. */
  restored: { instances: number; resumed: number };
  close(): Promise<void>;
}

/**
 * The service without the Functions host: its services on the given (or configured)
 * storage, and the orchestrators and activities of production run by the local replay
 * driver. The local host and the CLI's `provision` run requests through it, so they take
 * exactly the path a request takes in Azure: lease, step machines, journal, record.
 */
export async function startServiceRuntime(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let storage = options.storage;
    const keepState = storage === undefined && options.stateDir !== undefined;
    const ephemeralStorage = storage === undefined && !keepState;
    let flush: (() => Promise<void>) | undefined;
    if (storage === undefined) {
      const azurite = await startAzurite(
        options.stateDir === undefined ? {} : { location: join(options.stateDir, 'azurite') },
      );
      closers.push(() => azurite.close());
      storage = { kind: 'connectionString', connectionString: azurite.connectionString };
      if (keepState) flush = () => azurite.flush();
    }
    const clock = options.clock ?? 'real';
    const flowing = flowingClock(clock);
    const built = buildServices({
      config: options.config,
      logger: options.logger,
      storage,
      secrets: options.secrets,
      ...(options.trustedCa === undefined ? {} : { trustedCa: options.trustedCa }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.meter === undefined ? {} : { meter: options.meter }),
      // Connectors wait on a sped-up clock with everything else; on the real or a virtual one, in real time.
      ...(flowing === undefined || flowing === REAL_CLOCK ? {} : { clock: flowing }),
      // Leases are taken on the driver's clock: writes judge what is left of them on it too.
      ...(clock === 'real' ? {} : { now: () => clock.now() }),
    });
    if (options.registry === undefined) closers.push(() => built.registry.close());
    const services =
      flush === undefined
        ? built
        : { ...built, intents: new DurableWriteIntents(built.intents, flush) };
    const provider = () => Promise.resolve(services);
    const driver: OrchestrationDriver = new OrchestrationDriver({
      orchestrators: ORCHESTRATORS,
      activities: createActivityHandlers(provider, (): OrchestrationClient => driver) as Record<
        string,
        (input: unknown) => Promise<unknown>
      >,
      clock,
      logger: options.logger,
      maxConcurrentActivities: options.maxConcurrentActivities ?? 64,
      ...(flush === undefined
        ? {}
        : { history: new TableHistoryStore(tableClient(storage, HISTORY_TABLE), flush) }),
    });
    closers.push(() => driver.close());
    const restored = await driver.restore();
    return { services, driver, ephemeralStorage, storage, restored, close };
  } catch (error) {
    await close();
    throw error;
  }
}
