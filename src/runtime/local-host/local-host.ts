import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { bulkRequestHandler } from '../../api/bulk-request-handler';
import type { ApiDeps } from '../../api/api-deps';
import { importTimerHandler } from '../../api/import-timer';
import { intentPurgeTimerHandler } from '../../api/intent-purge-timer';
import { passwordSweepTimerHandler } from '../../api/password-sweep-timer';
import { reconcileTimerHandler } from '../../api/reconcile-timer';
import { apiRoutes } from '../../api/routes';
import { loadConfig, type AppConfig, type StorageConnection } from '../../config/app-config';
import type { ConnectorSettings } from '../../config/connector-settings';
import { connectorSettingsKinds } from '../../connectors/connector-kinds';
import type { Logger } from '../../domain/logger';
import { LocalSecretStore } from '../../secrets/local-secret-store';
import type { WorkflowServices } from '../../workflows/workflow-services';
import { secretStoreFromConfig } from '../build-services';
import type { SandboxConnectors } from '../sandbox-connectors';
import { startServiceRuntime } from '../service-runtime';
import { createApiServer } from './http-adapter';
import { scheduleImports, scheduleReconciliations } from './connector-timers';
import { schedulePurgeOfIntents, scheduleSweepOfPasswords } from './intent-purge-schedule';
import { startLocalMetrics } from './local-metrics';
import type { OrchestrationDriver } from './orchestration-driver';
import { QueuePoller } from './queue-poller';
import { RestartAwareSecrets } from './restart-aware-secrets';
import { clockNow, type DriverClock } from './virtual-clock';

/**
 * How many requests the local host has started and not yet got past their first activity
 * before its queue poller takes in more bulk messages. Taking in a message (its submission,
 * the orchestration's start and first episode) competes for the same cores as the
 * continuations of the requests already under way (their answers, their next activities);
 * left unbounded, the poller takes in a thousand queued requests while the targets' slots,
 * which the continuations would fill, stand half empty. 64 keeps every target slot of the
 * default connectors (8 per target) in work with room to spare; messages not taken stay on
 * the queue, where they wait no longer than they would behind the taken ones. The bound is
 * checked before each fetch, and a fetch takes up to a batch of messages (each may hold
 * several requests): it is a soft bound, exceeded by at most one fetch.
 */
export const DEFAULT_MAX_STARTING_REQUESTS = 64;

export interface LocalHostOptions {
  /** The environment to read settings from (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Overrides LOCAL_HOST_PORT (tests use 0). */
  port?: number;
  /** `real` for `npm start`; tests pass a virtual clock shared with the Graph sandbox. */
  clock?: DriverClock;
  /** Sandbox latency when sandboxes are started (benchmarks). */
  sandboxLatencyMs?: number;
  /** Bulk queue polling pause (default 1 s) and retry visibility (default 5 s). */
  queuePollMs?: number;
  /** The longest pause the poller backs off to while the queue stays empty (default: queuePollMs). */
  queueMaxPollMs?: number;
  queueVisibilitySeconds?: number;
  /** Storage to use instead of an in-process Azurite (benchmarks run Azurite apart). */
  storage?: StorageConnection;
  /**
   * A folder that keeps the state across restarts (`npm start`: `.local-host`): Azurite's
   * data, the orchestration histories and, when they run, the sandboxes' directories.
   * Default: everything in memory.
   */
  stateDir?: string;
  /** CA certificates to trust by connector name (configured connectors on self-signed HTTPS). */
  trustedCa?: Record<string, string>;
  /** Activities run at once (default 64): above the connectors' own per-target limits. */
  maxConcurrentActivities?: number;
  /**
   * Bulk messages are taken in only while fewer requests than this are started and not yet
   * past their first activity (default 64; 0: no bound): the continuations of requests under
   * way go first, and messages not taken stay on the queue. See `DEFAULT_MAX_STARTING_REQUESTS`.
   */
  maxStartingRequests?: number;
  /** The built console to serve (default: `dist/console` of this build). */
  consoleDirectory?: string;
  /**
   * Tests only: believe `x-ms-client-principal` on the signed-in entrance, as App Service
   * Authentication would have set it. Nothing on this host strips a caller's own header.
   */
  signedInCallers?: boolean;
  /**
   * Tests only: changes the sandbox connectors' settings (e.g. a quarantine probe that waits
   * an hour, so that only an operator's release ends the quarantine).
   */
  sandboxSettings?: (settings: ConnectorSettings) => ConnectorSettings;
  /**
   * Record metrics (default true): the same meter as in Azure, served at `GET /api/metrics`.
   * Off only to measure what recording costs (the service benchmark).
   */
  metrics?: boolean;
  logger: Logger;
}

export interface LocalHost {
  /** e.g. http://127.0.0.1:7071 */
  url: string;
  /** The web console: {url}/api/console/ */
  consoleUrl: string;
  apiKey: string;
  /** The key was made at start (LOCAL_HOST_API_KEY unset): only then may it be printed. */
  apiKeyGenerated: boolean;
  config: AppConfig;
  services: WorkflowServices;
  driver: OrchestrationDriver;
  poller: QueuePoller;
  /** Present when no connector was configured. */
  sandboxes?: SandboxConnectors;
  importSchedules: { connector: string; next: Date | null }[];
  reconcileSchedules: { connector: string; next: Date | null }[];
  /** With a state folder: the requests and jobs found there, and the unfinished ones resumed. */
  restored: { instances: number; resumed: number };
  close(): Promise<void>;
}

/**
 * The local host (DESIGN: the local host): the same handlers, orchestrators and activities
 * as in Azure, on 127.0.0.1, with Azurite in-process, the bulk queue polled like the
 * trigger, import schedules run, orchestrations replayed through durable-functions' own
 * executor, and the SCIM and Graph sandboxes when no connector is configured. One
 * process; its state is kept in `stateDir` when given, else lost at exit.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const { logger } = options;
  const clock = options.clock ?? 'real';
  const now = () => clockNow(clock);
  let config = loadConfig(options.env ?? process.env, connectorSettingsKinds());
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let sandboxes: SandboxConnectors | undefined;
    let secrets = secretStoreFromConfig(config);
    if (config.connectors.length === 0) {
      // Loaded only to run them: a host with connectors of its own (a bench, a test) keeps
      // the sandboxes' servers and their packages (express, scimmy, x509) out of its heap.
      const { startSandboxConnectors } = await import('../sandbox-connectors.js');
      sandboxes = await startSandboxConnectors({
        ...(options.sandboxLatencyMs === undefined ? {} : { latencyMs: options.sandboxLatencyMs }),
        ...(clock === 'real' ? {} : { now }),
        ...(options.stateDir === undefined
          ? {}
          : { stateDir: join(options.stateDir, 'sandboxes') }),
      });
      closers.push(() => sandboxes?.close());
      const adjust = options.sandboxSettings ?? ((settings: ConnectorSettings) => settings);
      config = { ...config, connectors: sandboxes.settings.map(adjust) };
      secrets = new LocalSecretStore({
        ...(config.secretStore.provider === 'local' ? config.secretStore.values : {}),
        ...sandboxes.secrets,
      });
    }
    if (options.stateDir !== undefined) {
      secrets = new RestartAwareSecrets(secrets, join(options.stateDir, 'secret-names.json'));
    }
    const trustedCa = sandboxes?.trustedCa ?? options.trustedCa;
    const metrics = startLocalMetrics({ enabled: options.metrics ?? true });
    closers.push(() => metrics.close());
    const runtime = await startServiceRuntime({
      config,
      logger,
      secrets,
      ...(options.storage === undefined ? {} : { storage: options.storage }),
      ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      ...(trustedCa === undefined ? {} : { trustedCa }),
      clock,
      maxConcurrentActivities: options.maxConcurrentActivities ?? 64,
      meter: metrics.meter,
    });
    closers.push(() => runtime.close());
    const { services, driver } = runtime;
    const provider = () => Promise.resolve(services);
    const deps: ApiDeps = {
      services: provider,
      orchestrations: () => driver,
      now: () => new Date(now()),
      appServiceAuthentication: options.signedInCallers === true,
      keyHolder: 'local API key',
      metricsText: () => metrics.prometheusText(),
      ...(options.consoleDirectory === undefined
        ? {}
        : { consoleDirectory: options.consoleDirectory }),
    };

    const apiKey = config.localHost.apiKey ?? randomBytes(24).toString('base64url');
    const server = createApiServer(apiRoutes(deps), { apiKey, logger });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? config.localHost.port, '127.0.0.1', () => resolve());
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const maxStarting = options.maxStartingRequests ?? DEFAULT_MAX_STARTING_REQUESTS;
    const poller = new QueuePoller(services.bulkQueue, bulkRequestHandler(deps), {
      intervalMs: options.queuePollMs ?? 1_000,
      ...(options.queueMaxPollMs === undefined ? {} : { maxIntervalMs: options.queueMaxPollMs }),
      visibilityTimeoutSeconds: options.queueVisibilitySeconds ?? 5,
      batchSize: 16,
      ...(maxStarting > 0 ? { admit: () => driver.whenFewerStarting(maxStarting) } : {}),
      logger,
      // Counted as the handler counts what it gives up: the poison-messages alert sees it.
      onPoisoned: () => services.metrics.bulkPoisoned('failed_repeatedly'),
    });
    poller.start();
    closers.push(() => poller.stop());
    const imports = scheduleImports(
      config.connectors,
      (name) => importTimerHandler(deps, name),
      logger,
    );
    closers.push(() => imports.stop());
    const reconciliations = scheduleReconciliations(
      config.connectors,
      (name) => reconcileTimerHandler(deps, name),
      logger,
    );
    closers.push(() => reconciliations.stop());
    closers.push(
      schedulePurgeOfIntents(
        intentPurgeTimerHandler(deps, config.writeIntentRetentionDays),
        logger,
      ),
    );
    closers.push(scheduleSweepOfPasswords(passwordSweepTimerHandler(deps), logger));

    const port = (server.address() as AddressInfo).port;
    return {
      url: `http://127.0.0.1:${port}`,
      consoleUrl: `http://127.0.0.1:${port}/api/console/`,
      apiKey,
      apiKeyGenerated: config.localHost.apiKey === undefined,
      config,
      services,
      driver,
      poller,
      ...(sandboxes === undefined ? {} : { sandboxes }),
      importSchedules: imports.schedules,
      reconcileSchedules: reconciliations.schedules,
      restored: runtime.restored,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
