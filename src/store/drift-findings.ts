import { createHash } from 'node:crypto';
import type { DriftFinding, DriftType } from '../domain/drift-finding';

export type { DriftFinding };

/** A filter of the drift report (`GET /connectors/{name}/drift`). */
export interface DriftQuery {
  connector: string;
  type?: DriftType;
  accountId?: string;
  groupId?: string;
  status?: 'open' | 'closed';
  /** Page size, 1-500 (default 100). */
  limit?: number;
  continuationToken?: string;
}

export interface DriftPage {
  /** Open findings first, then closed ones; newest first within each. */
  findings: DriftFinding[];
  continuationToken?: string;
}

/**
 * The drift report per connector (issue 18, DESIGN: src/store): findings are never deleted,
 * a finding a later run no longer finds is closed, so auditors keep the history.
 */
export interface DriftFindingStore {
  /** Every open finding of the connector. */
  open(connector: string): Promise<DriftFinding[]>;
  get(connector: string, findingId: string): Promise<DriftFinding | undefined>;
  query(query: DriftQuery): Promise<DriftPage>;
  /**
   * Stores findings as they are now: new and re-confirmed ones open, closed ones closed (a
   * finding closed here leaves the open ones). Saving the same findings again changes nothing.
   */
  save(findings: readonly DriftFinding[]): Promise<void>;
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
