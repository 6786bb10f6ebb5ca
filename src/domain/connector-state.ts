import type { ErrorCode } from './errors';

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
