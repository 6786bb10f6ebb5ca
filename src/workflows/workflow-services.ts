import type { Logger } from '../domain/logger';
import type { ConnectorRegistry } from '../connectors/connector-registry';
import type { SecretStore } from '../secrets/secret-store';
import type { AccountStateStore } from '../store/account-state';
import type { BulkQueue } from '../store/bulk-queue';
import type { CompatibilityRunStore } from '../store/compatibility-runs';
import type { DriftEventQueue } from '../store/drift-events';
import type { DriftFindingStore } from '../store/drift-findings';
import type { ReconciliationStateStore } from '../store/reconciliation-state';
import type { ConnectorStateStore } from '../store/connector-states';
import type { JournalStore } from '../store/journal-store';
import type { RequestIndexStore } from '../store/request-index';
import type { QuarantineStore } from '../store/quarantine-store';
import type { RoleCatalogueStore } from '../store/role-catalogue';
import type { WriteIntentStore } from '../store/write-intents';
import type { ServiceMetrics } from '../telemetry/service-metrics';

/** What activities and API handlers work with: built once per process (DESIGN: src/runtime). */
export interface WorkflowServices {
  registry: ConnectorRegistry;
  secrets: SecretStore;
  journal: JournalStore;
  catalogue: RoleCatalogueStore;
  /** Each account's record and lease, beside its journal entries. */
  accounts: AccountStateStore;
  intents: WriteIntentStore;
  /** The last compatibility run of each connector. */
  compatibility: CompatibilityRunStore;
  /** The request list's index: written at submission and when a request ends. */
  requests: RequestIndexStore;
  /** Each connector's quarantine and the requests it holds (issue 14). */
  quarantine: QuarantineStore;
  /** The drift report: reconciliation's findings, open and closed. */
  drift: DriftFindingStore;
  /** What reconciliation keeps between runs (a copy of the target, delta links) and its progress. */
  reconciliation: ReconciliationStateStore;
  /** The `drift-events` queue: one message per new finding. */
  driftEvents: DriftEventQueue;
  /** What the service last saw of each connector: status checks and imports (GET /api/health). */
  connectorStates: ConnectorStateStore;
  bulkQueue: BulkQueue;
  logger: Logger;
  /** The one meter's instruments (src/domain/metric-catalogue.ts). */
  metrics: ServiceMetrics;
  /**
   * The clock the orchestrations run on, which account leases are judged on (default the
   * real one; the local host's driver clock in tests and demos).
   */
  now?: () => number;
}

/** The process's services, built on first use (tables are created then). */
export type ServicesProvider = () => Promise<WorkflowServices>;
