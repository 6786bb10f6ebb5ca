import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import type { JournalChange, JournalEntry } from '../domain/journal-entry';
import { requestContextOf } from '../domain/request-context';
import { accountFilter, ACCOUNT_IDS_AS_GIVEN, type AccountKeys } from './account-keys';
import { JOURNAL_ROWS_END } from './account-row';
import type { AccountKeyOf } from './account-rows';
import { EnsuredTable } from './ensured-table';
import type {
  JournalPage,
  JournalQuery,
  JournalStore,
  RecordedJournalEntry,
} from './journal-store';
import { readPage } from './table-page';
import { purgeStepMarkers } from './step-marker';
import { guardStorage } from './storage-failure';
import { upsertInBatches } from './table-batches';
import { encodeTableKey } from './table-key';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/**
 * How long before now a query by record time reaches: the table stamps a row's Timestamp
 * as it processes the write, which shows once committed; a table operation ends within
 * 30 s (the service's own timeout), and the rest covers the clocks of this host and of
 * storage telling different times.
 */
export const RECORDED_SETTLE_MS = 60_000;

interface JournalRow {
  key: string;
  connector: string;
  /** The request's spelling, as shown. */
  accountId: string;
  /** The connector's canonical form of it (account-keys.ts); absent in rows written before. */
  accountKey?: string;
  requestId: string;
  step: number;
  change: string;
  groupId?: string;
  groupName?: string;
  requestedBy?: string;
  reason?: string;
  correlationId?: string;
  submittedBy?: string;
  at: string;
  foundBy?: string;
  foundAt?: string;
}

/**
 * The change journal in Table Storage. PartitionKey is the connector, RowKey
 * `<at as ISO>_<key>`: rows of a connector sort by time, and an entry recorded again at the
 * same time (a retried activity) lands on the same row (DESIGN invariant 1). A step's commit
 * run again at a later time finds its marker instead (step-marker.ts). Each row carries the
 * account's key, and a filter by account matches it: every spelling of an account finds all
 * its entries.
 */
export class TableJournalStore implements JournalStore {
  private readonly table: EnsuredTable;

  /**
   * `keys`: the connectors' canonical forms of account IDs (default: each ID as it is).
   * `recorded`: how far before now (`now`, ms) a query by record time reaches.
   */
  constructor(
    client: TableClient,
    private readonly keys: AccountKeys = ACCOUNT_IDS_AS_GIVEN,
    private readonly recorded: { settleMs: number; now: () => number } = {
      settleMs: RECORDED_SETTLE_MS,
      now: Date.now,
    },
  ) {
    this.table = new EnsuredTable(client);
  }

  recordedHorizon(): string {
    return new Date(this.recorded.now() - this.recorded.settleMs).toISOString();
  }

  /** Upserts the entries, 100 per transaction and partition; the same entries twice leave one row each. */
  async record(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = journalRowsOf(entries, this.keys.keyOf);
    const client = await this.table.client();
    await guardStorage('record journal entries', () => upsertInBatches(client, rows, 'Replace'));
  }

  async purgeStepMarkers(connector: string, beforeDay: string): Promise<number> {
    return purgeStepMarkers(await this.table.client(), connector, beforeDay);
  }

  /**
   * One page of entries, ordered by connector then time. Filters are OData expressions
   * with quoted, escaped values (the SDK's `odata` tag doubles single quotes). A page may
   * hold fewer than `limit` entries only when it is the last one.
   */
  async query(query: JournalQuery): Promise<JournalPage> {
    const recordedTo = this.recordedToOf(query);
    const page = await readPage<JournalRow, RecordedJournalEntry>(await this.table.client(), {
      filter: journalFilter(
        { ...query, ...(recordedTo === undefined ? {} : { recordedTo }) },
        this.keys,
      ),
      limit: query.limit,
      defaultLimit: DEFAULT_LIMIT,
      maxLimit: MAX_LIMIT,
      continuationToken: query.continuationToken,
      of: 'the journal',
      fromRow,
    });
    return recordedTo === undefined ? page : { ...page, recordedTo };
  }

  /**
   * The horizon of a query by record time: the one asked for, never later than the store's
   * own. A page after the first keeps the first one's (a later horizon would take in rows
   * the earlier pages passed over without their being in them).
   */
  recordedToOf(query: JournalQuery): string | undefined {
    if (query.recordedFrom === undefined && query.recordedTo === undefined) return undefined;
    if (query.recordedTo === undefined && query.continuationToken !== undefined) {
      throw new ProvisioningError(
        'REQUEST_INVALID',
        'recordedTo is required with continuationToken and recordedFrom: pass the recordedTo of the first page',
        { object: 'recordedTo' },
      );
    }
    const horizon = this.recordedHorizon();
    if (query.recordedTo === undefined) return horizon;
    const asked = isoTime(query.recordedTo, 'recordedTo');
    return asked < horizon ? asked : horizon;
  }
}

/**
 * The table rows of journal entries: PartitionKey the connector, RowKey `<at as ISO>_<key>`,
 * so that an entry recorded again at the same time lands on the same row; `accountKey`: the
 * key each row carries besides the account ID as the request spelled it.
 */
export function journalRowsOf(entries: readonly JournalEntry[], accountKey: AccountKeyOf) {
  return entries.map((entry) => ({
    partitionKey: encodeTableKey(entry.connector),
    rowKey: `${isoTime(entry.at, 'at')}_${entry.key}`,
    ...toRow(entry),
    accountKey: accountKey(entry.connector, entry.accountId),
  }));
}

function journalFilter(query: JournalQuery, keys: AccountKeys): string {
  const clauses: string[] = [];
  if (query.connector !== undefined) {
    clauses.push(odata`PartitionKey eq ${encodeTableKey(query.connector)}`);
  }
  if (query.accountId !== undefined) {
    clauses.push(accountFilter(keys, query.accountId, query.connector));
  }
  if (query.requestId !== undefined) clauses.push(odata`requestId eq ${query.requestId}`);
  if (query.correlationId !== undefined) {
    clauses.push(odata`correlationId eq ${query.correlationId}`);
  }
  if (query.requestedBy !== undefined) clauses.push(odata`requestedBy eq ${query.requestedBy}`);
  // RowKeys start with the entry's ISO time: a time range is a RowKey range.
  if (query.from !== undefined) clauses.push(odata`RowKey ge ${isoTime(query.from, 'from')}`);
  // The row's Timestamp: when the table last wrote it (not a key: the partition is scanned).
  if (query.recordedFrom !== undefined) {
    clauses.push(odata`Timestamp ge ${new Date(isoTime(query.recordedFrom, 'recordedFrom'))}`);
  }
  if (query.recordedTo !== undefined) {
    clauses.push(odata`Timestamp lt ${new Date(isoTime(query.recordedTo, 'recordedTo'))}`);
  }
  if (query.to !== undefined) clauses.push(odata`RowKey lt ${isoTime(query.to, 'to')}`);
  // The connector's account rows follow its entries in the same table (account-row.ts).
  else clauses.push(odata`RowKey lt ${JOURNAL_ROWS_END}`);
  return clauses.join(' and ');
}

/** One spelling of an instant, so that RowKeys sort by time. */
function isoTime(value: string, field: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new ProvisioningError('REQUEST_INVALID', `${field} must be an ISO 8601 time`, {
      object: field,
    });
  }
  return new Date(time).toISOString();
}

function toRow(entry: JournalEntry): JournalRow {
  return {
    key: entry.key,
    connector: entry.connector,
    accountId: entry.accountId,
    requestId: entry.requestId,
    step: entry.step,
    change: entry.change,
    ...(entry.groupId === undefined ? {} : { groupId: entry.groupId }),
    ...(entry.groupName === undefined ? {} : { groupName: entry.groupName }),
    ...requestContextOf(entry),
    at: entry.at,
    ...(entry.foundBy === undefined ? {} : { foundBy: entry.foundBy }),
    ...(entry.foundAt === undefined ? {} : { foundAt: entry.foundAt }),
  };
}

function fromRow(row: TableEntityResult<JournalRow>): RecordedJournalEntry {
  return {
    key: row.key,
    connector: row.connector,
    accountId: row.accountId,
    requestId: row.requestId,
    step: row.step,
    change: row.change as JournalChange,
    ...(row.groupId === undefined ? {} : { groupId: row.groupId }),
    ...(row.groupName === undefined ? {} : { groupName: row.groupName }),
    ...requestContextOf(row),
    at: row.at,
    ...(row.foundBy === undefined ? {} : { foundBy: row.foundBy }),
    ...(row.foundAt === undefined ? {} : { foundAt: row.foundAt }),
    recordedAt: recordedAtOf(row.timestamp ?? row.at),
  };
}

/**
 * The row's Timestamp in milliseconds, rounded down (the table keeps 7 decimals of a
 * second): `recordedFrom` at an entry's `recordedAt` finds the entry again, never misses it.
 */
function recordedAtOf(timestamp: string): string {
  return new Date(timestamp.replace(/(\.\d{3})\d+(?=Z|[+-])/, '$1')).toISOString();
}
