import { createHash } from 'node:crypto';
import { odata, type TableEntityResult } from '@azure/data-tables';
import {
  driftKey,
  isDriftType,
  subjectDetailsOf,
  type DriftFinding,
  type DriftSubjectDetails,
} from '../domain/drift-finding';
import { accountFilter, type AccountKeys } from './account-keys';
import type { DriftQuery, StoredFinding } from './drift-findings';
import { decodeTableKey, encodeTableKey } from './table-key';

/*
 * The layout of table `DriftFindings` (see TableDriftFindings): a finding's row, its RowKey
 * while open and once closed, its subject's claim, its version, and the report's filters.
 */

/**
 * RowKey prefixes: open findings sort before closed ones ('o' < 'x'); a subject's claim
 * sorts before both, outside the report's ranges.
 */
export const CLAIM = 'k~';
export const OPEN = 'o~';
export const CLOSED = 'x~';
/** A finding's version: its row's prefix, whether it holds its subject's claim, its ETag. */
export const CLAIMED = 'k';
export const UNCLAIMED = '-';

/** A finding's row. */
export interface FindingRow extends DriftSubjectDetails {
  findingId: string;
  type: string;
  status: string;
  targetId: string;
  firstSeen: string;
  lastConfirmed: string;
  closedAt?: string;
  firstJobId: string;
  lastJobId: string;
  closedJobId?: string;
  closedBecause?: string;
  /** JSON array of strings. */
  evidence: string;
  restoreRequestId?: string;
  restoreAt?: string;
  /** An open finding written with its subject's claim (rows written before claims have none). */
  claimed?: boolean;
  /** The account's key (account-keys.ts), beside its ID; absent in rows written before. */
  accountKey?: string;
  /**
   * The save that wrote the row last (a random id per save): a save whose write was applied
   * but answered with an error, and retried into a conflict with itself, knows it as its own.
   */
  writeId?: string;
}

/**
 * A finding's version: the row it was read from (open or closed), whether it holds its
 * subject's claim, and that row's ETag. The row's prefix is two characters (`o~`, `x~`),
 * the claim's mark one (absent from versions read before claims: an ETag starts `W/`).
 */
export function versionOf(
  version: string,
  findingId: string,
): { rowKey: string; etag: string; claimed: boolean } | undefined {
  const prefix = version.slice(0, 2);
  if (prefix !== OPEN && prefix !== CLOSED) return undefined;
  const mark = version.slice(2, 3);
  const marked = mark === CLAIMED || mark === UNCLAIMED;
  return {
    rowKey: `${prefix}${encodeTableKey(findingId)}`,
    etag: version.slice(marked ? 3 : 2),
    claimed: mark === CLAIMED,
  };
}

/** The RowKey of a subject's claim: a digest of its identity, one per subject. */
export function claimKeyOf(finding: DriftFinding): string {
  return `${CLAIM}${createHash('sha256').update(driftKey(finding)).digest('hex')}`;
}

/** A finding's RowKey: `o~<id>` while open, `x~<id>` once closed. */
export function rowKeyOf(finding: Pick<DriftFinding, 'status' | 'findingId'>): string {
  return `${finding.status === 'open' ? OPEN : CLOSED}${encodeTableKey(finding.findingId)}`;
}

/** The OData filter of a page of the drift report. */
export function queryFilter(query: DriftQuery, keys: AccountKeys): string {
  const clauses = [odata`PartitionKey eq ${encodeTableKey(query.connector)}`];
  // Claims are no findings: they sort before every finding's row.
  if (query.status === undefined) clauses.push(odata`RowKey ge ${OPEN}`);
  if (query.status === 'open') clauses.push(odata`RowKey ge ${OPEN} and RowKey lt ${'o~\uffff'}`);
  if (query.status === 'closed')
    clauses.push(odata`RowKey ge ${CLOSED} and RowKey lt ${'x~\uffff'}`);
  if (query.type !== undefined) clauses.push(odata`type eq ${query.type}`);
  if (query.accountId !== undefined) {
    clauses.push(accountFilter(keys, query.accountId, query.connector));
  }
  if (query.groupId !== undefined) clauses.push(odata`groupId eq ${query.groupId}`);
  return clauses.join(' and ');
}

/** A finding as its row holds it. */
export function toRow(finding: DriftFinding): FindingRow {
  return {
    findingId: finding.findingId,
    type: finding.type,
    status: finding.status,
    targetId: finding.targetId,
    ...subjectDetailsOf(finding),
    firstSeen: finding.firstSeen,
    lastConfirmed: finding.lastConfirmed,
    ...optional('closedAt', finding.closedAt),
    firstJobId: finding.firstJobId,
    lastJobId: finding.lastJobId,
    ...optional('closedJobId', finding.closedJobId),
    ...optional('closedBecause', finding.closedBecause),
    evidence: JSON.stringify(finding.evidence),
    ...optional('restoreRequestId', finding.restore?.requestId),
    ...optional('restoreAt', finding.restore?.at),
  };
}

/** A finding as read, with its version. */
export function fromRow(row: TableEntityResult<FindingRow>): StoredFinding {
  return {
    findingId: row.findingId,
    connector: decodeTableKey(row.partitionKey ?? ''),
    type: isDriftType(row.type) ? row.type : 'unlinkedMember',
    status: row.status === 'closed' ? 'closed' : 'open',
    targetId: row.targetId,
    ...subjectDetailsOf(row),
    firstSeen: row.firstSeen,
    lastConfirmed: row.lastConfirmed,
    ...optional('closedAt', row.closedAt),
    firstJobId: row.firstJobId,
    lastJobId: row.lastJobId,
    ...optional('closedJobId', row.closedJobId),
    ...optional('closedBecause', row.closedBecause),
    evidence: readEvidence(row.evidence),
    ...(row.restoreRequestId === undefined || row.restoreAt === undefined
      ? {}
      : { restore: { requestId: row.restoreRequestId, at: row.restoreAt } }),
    ...(row.etag === undefined
      ? {}
      : {
          version: `${(row.rowKey ?? '').slice(0, 2)}${row.claimed === true ? CLAIMED : UNCLAIMED}${row.etag}`,
        }),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

function readEvidence(text: string | undefined): string[] {
  try {
    const parsed = JSON.parse(text ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}
