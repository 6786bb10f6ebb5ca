import { odata, type TableClient, type TableEntityResult } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import { requestContextOf, type RequestContext } from '../domain/request-context';
import type { RequestStatus } from '../domain/request-report';
import { EnsuredTable } from './ensured-table';
import { readPage } from './table-page';
import type {
  RequestIndexEntry,
  RequestIndexPage,
  RequestIndexQuery,
  RequestIndexStore,
} from './request-index';
import { guardStorage, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/** The largest time in milliseconds a RowKey spells with 13 digits (the year 2286). */
const LAST_MS = 9_999_999_999_999;

interface IndexRow extends RequestContext {
  requestId: string;
  connector: string;
  accountId: string;
  /** Action types joined with commas (a table property holds no arrays). */
  actions: string;
  status: string;
  source: string;
  receivedAt: string;
  finishedAt?: string;
}

/**
 * The request index in Table Storage. Each request is written to three partitions, so
 * that every filter of the list reads one partition in key order: `all`, `connector:<name>`
 * and `account:<account ID>` (the connector, when both are given, is a property filter
 * there). RowKey `<13 digits: 9999999999999 - received ms>_<requestId>` sorts the newest
 * first, and is derived from the request alone: a retried or replayed write lands on the
 * same rows.
 */
export class TableRequestIndex implements RequestIndexStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async add(entry: RequestIndexEntry): Promise<void> {
    const client = await this.table.client();
    for (const row of rowsOf(entry)) {
      await guardStorage('index the request', async () => {
        try {
          await client.createEntity(row);
        } catch (error) {
          // Already indexed: by an earlier try, or by the request's end, which wins.
          if (storageStatus(error) !== 409) throw error;
        }
      });
    }
  }

  async recordEnd(entry: RequestIndexEntry): Promise<void> {
    const client = await this.table.client();
    for (const row of rowsOf(entry)) {
      await guardStorage('index the request', () => client.upsertEntity(row, 'Merge'));
    }
  }

  async query(query: RequestIndexQuery): Promise<RequestIndexPage> {
    return readPage<IndexRow, RequestIndexEntry>(await this.table.client(), {
      filter: indexFilter(query),
      limit: query.limit,
      defaultLimit: DEFAULT_LIMIT,
      maxLimit: MAX_LIMIT,
      continuationToken: query.continuationToken,
      of: 'the request list',
      fromRow,
    });
  }
}

/** The partition a query reads: the account's, else the connector's, else all requests. */
function indexFilter(query: RequestIndexQuery): string {
  const clauses: string[] = [];
  if (query.accountId !== undefined) {
    clauses.push(odata`PartitionKey eq ${accountPartition(query.accountId)}`);
    if (query.connector !== undefined) clauses.push(odata`connector eq ${query.connector}`);
  } else if (query.connector !== undefined) {
    clauses.push(odata`PartitionKey eq ${connectorPartition(query.connector)}`);
  } else {
    clauses.push(`PartitionKey eq 'all'`);
  }
  if (query.statuses !== undefined && query.statuses.length > 0) {
    clauses.push(`(${query.statuses.map((status) => odata`status eq ${status}`).join(' or ')})`);
  }
  return clauses.join(' and ');
}

function connectorPartition(connector: string): string {
  return `connector:${encodeTableKey(connector)}`;
}

function accountPartition(accountId: string): string {
  return `account:${encodeTableKey(accountId)}`;
}

/** The entry's row in each of its three partitions. */
function rowsOf(entry: RequestIndexEntry) {
  const received = Date.parse(entry.receivedAt);
  if (Number.isNaN(received)) {
    throw new ProvisioningError('INTERNAL_ERROR', 'request index: receivedAt is not a time', {
      object: entry.requestId,
    });
  }
  const rowKey = `${String(LAST_MS - received).padStart(13, '0')}_${encodeTableKey(entry.requestId)}`;
  const row: IndexRow = {
    ...requestContextOf(entry),
    requestId: entry.requestId,
    connector: entry.connector,
    accountId: entry.accountId,
    actions: entry.actions.join(','),
    status: entry.status,
    source: entry.source,
    receivedAt: entry.receivedAt,
    ...(entry.finishedAt === undefined ? {} : { finishedAt: entry.finishedAt }),
  };
  return ['all', connectorPartition(entry.connector), accountPartition(entry.accountId)].map(
    (partitionKey) => ({ partitionKey, rowKey, ...row }),
  );
}

function fromRow(row: TableEntityResult<IndexRow>): RequestIndexEntry {
  return {
    ...requestContextOf(row),
    requestId: row.requestId,
    connector: row.connector,
    accountId: row.accountId,
    actions: row.actions === '' ? [] : row.actions.split(','),
    status: row.status as RequestStatus,
    source: row.source as RequestIndexEntry['source'],
    receivedAt: row.receivedAt,
    ...(row.finishedAt === undefined ? {} : { finishedAt: row.finishedAt }),
  };
}
