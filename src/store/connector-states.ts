import type { ImportState, ReconciliationState, StatusCheckState } from '../domain/connector-state';
import type { UserGroupsVerdict, UserGroupsVerdicts } from '../domain/user-groups-verdict';

export type { ImportState, ReconciliationState, StatusCheckState, UserGroupsVerdict };

/**
 * What the service last saw of a connector (GET /api/health): its last status check, its
 * last catalogue import and its last reconciliation (the quarantine has its own store), and
 * what its connector learned of the target that every worker must know (a SCIM server's
 * user `groups` attribute caught cut short). Nothing in it is a secret.
 */
export interface ConnectorState {
  lastStatusCheck?: StatusCheckState;
  lastImport?: ImportState;
  lastReconciliation?: ReconciliationState;
  userGroups?: UserGroupsVerdict;
}

/**
 * The connectors' last known states, kept across instances and restarts; also where
 * connectors keep their verdicts on a server's user `groups` attribute.
 */
export interface ConnectorStateStore extends UserGroupsVerdicts {
  /** The states of the named connectors (a connector never seen has an empty state). */
  read(connectors: readonly string[]): Promise<Map<string, ConnectorState>>;
  recordStatusCheck(connector: string, state: StatusCheckState): Promise<void>;
  recordImport(connector: string, state: ImportState): Promise<void>;
  recordReconciliation(connector: string, state: ReconciliationState): Promise<void>;
}
