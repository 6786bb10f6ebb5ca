import { createHash } from 'node:crypto';
import type { DriftFinding, DriftType } from '../domain/drift-finding';
import type { DriftTally } from '../domain/reconciliation-result';

export type { DriftFinding };

/**
 * A finding as the store read it, with the version of its row: a change judged on this copy
 * is written only while the row is still at that version. Opaque to everyone but the store;
 * never shown to callers of the API.
 */
export type StoredFinding = DriftFinding & { version?: string };

/**
 * What a pass (a reconciliation, a deferred recheck, a restore) makes of one finding,
 * judged on the copy it read. When the stored finding changed since (another pass wrote
 * it), the store reads it again and judges it again on the fresh copy, so that no pass
 * overwrites a newer state with one made from an older copy.
 */
export interface FindingChange {
  connector: string;
  findingId: string;
  /** The finding as the pass read it; absent for a finding the pass found new. */
  read?: StoredFinding;
  /**
   * The finding to store, judged on `stored` (undefined: no such finding is stored), or
   * undefined to leave it as it is. Pure: it runs again on every fresh copy.
   */
  judge(stored: StoredFinding | undefined): DriftFinding | undefined;
}

/** A filter of the drift report (`GET /connectors/{name}/drift`). */
export interface DriftQuery {
  connector: string;
  type?: DriftType;
  /** The account in any spelling the connector takes for it (account-keys.ts). */
  accountId?: string;
  groupId?: string;
  status?: 'open' | 'closed';
  /** Page size, 1-500 (default 100). */
  limit?: number;
  continuationToken?: string;
}

export interface DriftPage {
  /** Open findings first, then closed ones; newest first within each. */
  findings: StoredFinding[];
  continuationToken?: string;
}

/**
 * The drift report per connector (issue 18, DESIGN: src/store): findings are never deleted,
 * a finding a later run no longer finds is closed, so auditors keep the history.
 */
export interface DriftFindingStore {
  /** Every open finding of the connector. */
  open(connector: string): Promise<StoredFinding[]>;
  get(connector: string, findingId: string): Promise<StoredFinding | undefined>;
  /** A page of the report; its findings carry their version, as `open` and `get` give them. */
  query(query: DriftQuery): Promise<DriftPage>;
  /**
   * Stores what each change judged, each only over the version it was judged on: new and
   * re-confirmed findings open, closed ones closed (a finding closed here leaves the open
   * ones). A finding another pass wrote since is read again and judged again (a few times
   * at most, then DRIFT_FINDING_CONTENDED naming it). Answers the findings as stored.
   */
  save(changes: readonly FindingChange[]): Promise<DriftFinding[]>;
  /**
   * The connector's open findings and those reconciliation job `jobId` found and closed, per
   * type, counted from the rows: what a job's result reports, however often its passes ran.
   */
  tally(connector: string, jobId: string): Promise<DriftTally>;
}

/** The largest time in milliseconds 13 digits spell (the year 2286). */
const LAST_MS = 9_999_999_999_999;

/**
 * A finding's id: the time it was first seen, newest first, and a digest of what it is about,
 * so the run that found it (and a retry of that run) gives it the same id.
 *
 * @example
 * findingIdOf('2026-11-23T08:00:00.000Z', key); // '8204...-3fa9c1d27b04'
 */
export function findingIdOf(firstSeen: string, key: string): string {
  const inverted = String(LAST_MS - Date.parse(firstSeen)).padStart(13, '0');
  return `${inverted}-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}
