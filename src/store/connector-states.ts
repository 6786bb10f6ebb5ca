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
 * What the service last saw of a connector (GET /api/health): its last status check and its
 * last catalogue import. Quarantine (issue 14) and the last reconciliation (issue 18) join
 * here once they exist. Nothing in it is a secret.
 */
export interface ConnectorState {
  lastStatusCheck?: StatusCheckState;
  lastImport?: ImportState;
}

/** The connectors' last known states, kept across instances and restarts. */
export interface ConnectorStateStore {
  /** The states of the named connectors (a connector never seen has an empty state). */
  read(connectors: readonly string[]): Promise<Map<string, ConnectorState>>;
  recordStatusCheck(connector: string, state: StatusCheckState): Promise<void>;
  recordImport(connector: string, state: ImportState): Promise<void>;
}
