import type { ImportState, ReconciliationState, StatusCheckState } from '../domain/connector-state';

export type { ImportState, ReconciliationState, StatusCheckState };

/**
 * What the service last saw of a connector (GET /api/health): its last status check, its
 * last catalogue import and its last reconciliation (the quarantine has its own store).
 * Nothing in it is a secret.
 */
export interface ConnectorState {
  lastStatusCheck?: StatusCheckState;
  lastImport?: ImportState;
  lastReconciliation?: ReconciliationState;
}

/** The connectors' last known states, kept across instances and restarts. */
export interface ConnectorStateStore {
  /** The states of the named connectors (a connector never seen has an empty state). */
  read(connectors: readonly string[]): Promise<Map<string, ConnectorState>>;
  recordStatusCheck(connector: string, state: StatusCheckState): Promise<void>;
  recordImport(connector: string, state: ImportState): Promise<void>;
  recordReconciliation(connector: string, state: ReconciliationState): Promise<void>;
}
