import type { ErrorCode } from '../domain/errors';

/** The last status check of a connector, as the health report shows it. */
export interface StatusCheckState {
  /** ISO time it ended. */
  at: string;
  ok: boolean;
  summary: string;
  error?: { code: ErrorCode; message: string };
}

/** The last catalogue import of a connector, as the health report shows it. */
export interface ImportState {
  at: string;
  jobId?: string;
  ok: boolean;
  /** `full` or `incremental`, once it ran. */
  mode?: string;
  /** Groups it read. */
  groups?: number;
  error?: { code: ErrorCode; message: string };
}

/**
 * The bulk pass of a connector's last reconciliation, as the health report shows it: the
 * job's later passes over accounts a request kept busy are in its result (GET /jobs/{id}).
 */
export interface ReconciliationState {
  at: string;
  jobId: string;
  ok: boolean;
  mode?: 'full' | 'incremental';
  /** Findings it added, and findings open once it ended. */
  found?: number;
  open?: number;
  /** Reads that failed: what they would have shown was not judged. */
  incomplete?: number;
  /** Accounts a request kept busy, judged later by the same job. */
  waiting?: number;
  error?: { code: ErrorCode; message: string };
}

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
