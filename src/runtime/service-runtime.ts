import type { AppConfig, StorageConnection } from '../config/app-config';
import type { Logger } from '../domain/logger';
import type { SecretStore } from '../secrets/secret-store';
import { createActivityHandlers } from '../workflows/activities';
import { ORCHESTRATORS } from '../workflows/orchestrators';
import type { WorkflowServices } from '../workflows/workflow-services';
import { buildServices } from './build-services';
import type { ConnectorRegistry } from '../connectors/connector-registry';
import { startAzurite } from './local-host/azurite';
import { OrchestrationDriver } from './local-host/orchestration-driver';
import { flowingClock, REAL_CLOCK, type DriverClock } from './local-host/virtual-clock';

export interface ServiceRuntimeOptions {
  config: AppConfig;
  logger: Logger;
  secrets: SecretStore;
  /** Storage to use; default an in-process Azurite (state lost at exit). */
  storage?: StorageConnection;
  /** CA certificates to trust by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** A registry to share (the CLI's); default one built from the config. */
  registry?: ConnectorRegistry;
  clock?: DriverClock;
  /** Activities run at once (default 64): above the connectors' own per-target limits. */
  maxConcurrentActivities?: number;
}

export interface ServiceRuntime {
  services: WorkflowServices;
  driver: OrchestrationDriver;
  /** True when the state lives in an in-process Azurite and is lost at exit. */
  ephemeralStorage: boolean;
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
    const ephemeralStorage = storage === undefined;
    if (storage === undefined) {
      const azurite = await startAzurite();
      closers.push(() => azurite.close());
      storage = { kind: 'connectionString', connectionString: azurite.connectionString };
    }
    const clock = options.clock ?? 'real';
    const flowing = flowingClock(clock);
    const services = buildServices({
      config: options.config,
      logger: options.logger,
      storage,
      secrets: options.secrets,
      ...(options.trustedCa === undefined ? {} : { trustedCa: options.trustedCa }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      // Connectors wait on a sped-up clock with everything else; on the real or a virtual one, in real time.
      ...(flowing === undefined || flowing === REAL_CLOCK ? {} : { clock: flowing }),
    });
    if (options.registry === undefined) closers.push(() => services.registry.close());
    const provider = () => Promise.resolve(services);
    const driver = new OrchestrationDriver({
      orchestrators: ORCHESTRATORS,
      activities: createActivityHandlers(provider) as Record<
        string,
        (input: unknown) => Promise<unknown>
      >,
      clock,
      logger: options.logger,
      maxConcurrentActivities: options.maxConcurrentActivities ?? 64,
    });
    closers.push(() => driver.close());
    return { services, driver, ephemeralStorage, close };
  } catch (error) {
    await close();
    throw error;
  }
}
