import { metrics, type Meter } from '@opentelemetry/api';
import type { AppConfig, StorageConnection } from '../config/app-config';
import { ProvisioningError } from '../domain/errors';
import { TargetHealth } from '../domain/target-health';
import type { Logger } from '../domain/logger';
import { METER_NAME } from '../domain/metric-catalogue';
import { createKeyVaultSecretStore } from '../secrets/key-vault-secret-store';
import { LocalSecretStore } from '../secrets/local-secret-store';
import type { SecretStore } from '../secrets/secret-store';
import type { AccountKeys } from '../store/account-keys';
import { BulkQueue } from '../store/bulk-queue';
import { DRIFT_EVENTS_QUEUE, DriftEventQueue } from '../store/drift-events';
import { TableDriftFindings } from '../store/table-drift-findings';
import { TableReconciliationState } from '../store/table-reconciliation-state';
import { queueClient, tableClient } from '../store/storage-clients';
import { CachedRoleCatalogue } from '../store/cached-role-catalogue';
import { TableAccountState } from '../store/table-account-state';
import { TableCompatibilityRuns } from '../store/table-compatibility-runs';
import { TableConnectorStates } from '../store/table-connector-states';
import { TableJournalStore } from '../store/table-journal-store';
import { TableRequestIndex } from '../store/table-request-index';
import { TableQuarantineStore } from '../store/table-quarantine-store';
import { TableRoleCatalogue } from '../store/table-role-catalogue';
import { TableWriteIntents } from '../store/table-write-intents';
import type { WorkflowServices } from '../workflows/workflow-services';
import { ConnectorRegistry } from '../connectors/connector-registry';
import type { ConnectorDependencies } from '../connectors/create-connector';
import { connectorTelemetry } from '../telemetry/connector-telemetry';
import { observeServiceGauges } from '../telemetry/service-gauges';
import { ServiceMetrics } from '../telemetry/service-metrics';

/**
 * Table names: `infra/core/storage.bicep` creates exactly these (a template test checks it).
 * The journal's table also holds each account's record and lease (src/store/account-row.ts).
 */
export const TABLES = {
  journal: 'ProvisioningJournal',
  catalogue: 'RoleCatalogue',
  intents: 'WriteIntents',
  compatibility: 'CompatibilityRuns',
  requests: 'RequestIndex',
  quarantine: 'ConnectorQuarantine',
  drift: 'DriftFindings',
  reconciliation: 'ReconciliationState',
  connectorStates: 'ConnectorStates',
} as const;

export interface BuildServicesOptions {
  config: AppConfig;
  logger: Logger;
  /** Overrides the configured storage (the local host's Azurite). */
  storage?: StorageConnection;
  /** Overrides the configured secret store (the local host's sandbox secrets). */
  secrets?: SecretStore;
  /** CA certificates to trust by connector name (sandboxes with self-signed certificates). */
  trustedCa?: Record<string, string>;
  /** A registry built already (the CLI's); default one built from the config. */
  registry?: ConnectorRegistry;
  /** The clock connectors wait on (real time sped up in fault suites and benchmarks). */
  clock?: ConnectorDependencies['clock'];
  /** The clock orchestrations run on, which leases are judged on (default the real one). */
  now?: () => number;
  /**
   * The meter the service records on: the local host's own; default the global one, which
   * the Azure Monitor set-up provides in Azure (a no-op without it).
   */
  meter?: Meter;
}

/**
 * Builds the process's services once (DESIGN: src/runtime): connectors, secrets, the
 * tables and the bulk queue. Tables and queues are created on first use.
 */
export function buildServices(options: BuildServicesOptions): WorkflowServices {
  const { config, logger } = options;
  const storage = options.storage ?? config.storage;
  if (storage === undefined) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      'setting AzureWebJobsStorage__accountName (or AzureWebJobsStorage): no storage account is configured',
    );
  }
  const secrets = options.secrets ?? secretStoreFromConfig(config);
  const serviceMetrics = new ServiceMetrics(options.meter ?? metrics.getMeter(METER_NAME));
  const registry =
    options.registry ??
    new ConnectorRegistry(config, secrets, logger, options.trustedCa, options.clock, (name) =>
      connectorTelemetry(serviceMetrics, name),
    );
  watchTargets(registry);
  const connectorStates = new TableConnectorStates(tableClient(storage, TABLES.connectorStates));
  registry.keepVerdictsIn(connectorStates);
  const bulkQueue = new BulkQueue(
    queueClient(storage, config.bulkQueueName),
    queueClient(storage, `${config.bulkQueueName}-poison`),
  );
  const quarantine = new TableQuarantineStore(tableClient(storage, TABLES.quarantine));
  observeServiceGauges(serviceMetrics, { registry, bulkQueue, quarantine, now: Date.now });
  // One rule for telling accounts apart: the lease, the record and every row naming an account.
  const accountKeys: AccountKeys = {
    keyOf: (connector, accountId) => registry.accountKey(connector, accountId),
    connectors: () => registry.names(),
  };
  return {
    registry,
    secrets,
    journal: new TableJournalStore(tableClient(storage, TABLES.journal), accountKeys),
    catalogue: new CachedRoleCatalogue(
      new TableRoleCatalogue(tableClient(storage, TABLES.catalogue)),
    ),
    accounts: new TableAccountState(tableClient(storage, TABLES.journal), accountKeys.keyOf),
    intents: new TableWriteIntents(tableClient(storage, TABLES.intents)),
    compatibility: new TableCompatibilityRuns(tableClient(storage, TABLES.compatibility)),
    requests: new TableRequestIndex(tableClient(storage, TABLES.requests), accountKeys),
    quarantine,
    drift: new TableDriftFindings(tableClient(storage, TABLES.drift), accountKeys),
    reconciliation: new TableReconciliationState(tableClient(storage, TABLES.reconciliation)),
    driftEvents: new DriftEventQueue(queueClient(storage, DRIFT_EVENTS_QUEUE)),
    connectorStates,
    bulkQueue,
    ...(options.now === undefined ? {} : { now: options.now }),
    logger,
    metrics: serviceMetrics,
  };
}

/**
 * Counts, in this worker, the failures of each connector's target that fail every request:
 * the errors of the calls that tip the count say so, and the request that meets one
 * quarantines the connector (issue 14).
 */
function watchTargets(registry: ConnectorRegistry): void {
  const health = new TargetHealth((name) => registry.settings(name)?.quarantine);
  registry.observe({
    answered: (name) => health.answered(name),
    failed: (name, kind) => health.failed(name, kind, Date.now()),
  });
}

/** Key Vault in Azure (managed identity), the local store for the local host and tests. */
export function secretStoreFromConfig(config: AppConfig): SecretStore {
  return config.secretStore.provider === 'keyvault'
    ? createKeyVaultSecretStore(config.secretStore.vaultUrl, config.secretCacheMs)
    : new LocalSecretStore(config.secretStore.values);
}
