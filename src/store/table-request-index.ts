import { randomUUID } from 'node:crypto';
import {
  odata,
  type TableClient,
  type TableEntity,
  type TableEntityResult,
  type TransactionAction,
} from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import { requestContextOf, type RequestContext } from '../domain/request-context';
import type { RequestStatus } from '../domain/request-report';
import {
  accountFilter,
  accountKeysOf,
  ACCOUNT_IDS_AS_GIVEN,
  type AccountKeys,
} from './account-keys';
import type { AccountKeyOf } from './account-rows';
import { EnsuredTable } from './ensured-table';
import { GroupedTransactions } from './grouped-transactions';
import { readPage } from './table-page';
import type {
  RequestIndexEntry,
  RequestIndexPage,
  RequestIndexQuery,
  RequestIndexStore,
} from './request-index';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';
import { submitTransaction } from './table-transaction';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/** The largest time in milliseconds a RowKey spells with 13 digits (the year 2286). */
const LAST_MS = 9_999_999_999_999;
/** The prefix of the rows that mark a request's end as written (see {@link endMarkerOf}). */
const END_MARKER_PREFIX = 'e~';

interface IndexRow extends RequestContext {
  requestId: string;
  connector: string;
  /** The request's spelling, as shown. */
  accountId: string;
  /** The connector's canonical form of it (account-keys.ts); absent in rows written before. */
  accountKey?: string;
  /** Action types joined with commas (a table property holds no arrays). */
  actions: string;
  status: string;
  source: string;
  receivedAt: string;
  finishedAt?: string;
}

/** The partition of every index row: the request list reads one partition, whatever the filter. */
const PARTITION = 'all';
/**
 * The all-requests rows alone: their RowKeys begin with a digit, every other kind of row
 * with a letter (`c~`, `a~`), and ':' sorts after the digits and before the letters.
 */
const ALL_ROWS_END = ':';

/**
 * The request index in Table Storage, in one partition so that each write is one entity
 * group transaction. Each request has three rows, each range read in key order by one
 * filter of the list: `<suffix>` (all requests), `c~<connector>~<suffix>` and
 * `a~<account key>~<suffix>` (the connector, when both are given, is a property filter on
 * the account's range). The account key is the connector's canonical form of the account ID
 * (account-keys.ts), so every spelling of an account reads one range; each row also keeps the
 * ID as the request spelled it. The suffix `<13 digits: 9999999999999 - received ms>_<requestId>`
 * sorts the newest first, and is derived from the request alone: a retried or replayed
 * write lands on the same rows.
 *
 * Rows the earlier layout wrote to partitions `connector:<name>` and `account:<account ID>`
 * are still read: a filtered list goes on into that partition when the new range is
 * exhausted (its rows are older than any new one). So are account rows written before rows
 * were keyed by the account's key, under `a~<account ID as spelled>~`: found by the spelling
 * that wrote them, read after the key's range (they are older than any row in it).
 */
export class TableRequestIndex implements RequestIndexStore {
  private readonly table: EnsuredTable;
  /** Bulk adds and ends near in time, in shared transactions (one partition). */
  private readonly together: GroupedTransactions;

  /** `keys`: the connectors' canonical forms of account IDs (default: each ID as it is). */
  constructor(
    client: TableClient,
    private readonly keys: AccountKeys = ACCOUNT_IDS_AS_GIVEN,
  ) {
    this.table = new EnsuredTable(client);
    this.together = new GroupedTransactions(() => this.table.client(), 'index the request');
  }

  async add(entry: RequestIndexEntry): Promise<void> {
    await this.addRows(rowsOf(entry, this.keys.keyOf));
  }

  async addTogether(entry: RequestIndexEntry): Promise<void> {
    const rows = rowsOf(entry, this.keys.keyOf);
    await this.together.submit(createsOf(rows), undefined, () => this.addRows(rows));
  }

  /** A request's rows in one transaction; when one exists, each on its own, keeping it. */
  private async addRows(rows: readonly TableEntity[]): Promise<void> {
    const client = await this.table.client();
    try {
      await submitTransaction(client, createsOf(rows));
      return;
    } catch (error) {
      // A row exists (the end was written first, or this is a retried submission): the
      // transaction wrote nothing, so each row on its own, keeping any that exist.
      if (storageStatus(error) !== 409) throw storageFailure('index the request', error);
    }
    for (const row of rows) {
      await guardStorage('index the request', async () => {
        try {
          await client.createEntity(row);
        } catch (error) {
          if (storageStatus(error) !== 409) throw error;
        }
      });
    }
  }

  /** With the ends of requests ending at once; one refused for another's row goes alone. */
  async recordEnd(entry: RequestIndexEntry): Promise<boolean> {
    const rows = rowsOf(entry, this.keys.keyOf);
    // The end's marker is created with the rows: a run again of the same end (its answer
    // lost) is refused as a whole, and writes nothing and counts nothing.
    const marker = endMarkerOf(entry, rows[0]!.rowKey);
    const actions: TransactionAction[] = [
      ['create', marker],
      ...rows.map((row): TransactionAction => ['upsert', row, 'Merge']),
    ];
    return this.together.submit(actions, true, async () => {
      const client = await this.table.client();
      try {
        await submitTransaction(client, actions);
        return true;
      } catch (error) {
        if (storageStatus(error) !== 409) throw storageFailure('index the request', error);
      }
      const found = await guardStorage('index the request', () =>
        client.getEntity<{ endedBy?: string }>(PARTITION, marker.rowKey, {
          queryOptions: { select: ['endedBy'] },
        }),
      );
      return found.endedBy === marker.endedBy;
    });
  }

  async query(query: RequestIndexQuery): Promise<RequestIndexPage> {
    const client = await this.table.client();
    const { scope, earlier, ...filters } = indexFilters(query, this.keys);
    const newRowKey = (entry: RequestIndexEntry, within: Scope) =>
      newRowKeyOf(entry, within, this.keys.keyOf);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const entries: RequestIndexEntry[] = [];
    let continuationToken = fromEarlierLayout(filters.thenFilters, query.continuationToken);
    // Reads on when an earlier layout's row it skipped leaves the page short.
    do {
      const page = await readPage<IndexRow, ReadRow>(client, {
        ...filters,
        limit: limit - entries.length,
        defaultLimit: DEFAULT_LIMIT,
        maxLimit: MAX_LIMIT,
        continuationToken,
        of: 'the request list',
        fromRow: (row) => ({ entry: fromRow(row), legacy: earlier(row) }),
      });
      // Only a filtered list reads the earlier layout (its all-requests rows had today's keys).
      const earlierPending = (row: ReadRow) => row.legacy && row.entry.status === 'pending';
      const listed =
        scope === undefined
          ? new Set<string>()
          : await listedInNewRange(
              client,
              page.entries.filter(earlierPending).map(({ entry }) => newRowKey(entry, scope)),
            );
      for (const row of page.entries) {
        if (scope !== undefined && earlierPending(row) && listed.has(newRowKey(row.entry, scope))) {
          continue;
        }
        entries.push(row.entry);
      }
      continuationToken = page.continuationToken;
    } while (entries.length < limit && continuationToken !== undefined);
    return { entries, ...(continuationToken === undefined ? {} : { continuationToken }) };
  }
}

/**
 * A page token the earlier layout gave out for a filtered list stopped in its `connector:`
 * or `account:` partition, which is now read last: such a token (it has no `phase`, which
 * the page reader writes in every token of a filtered list now) reads on there rather than
 * from the newest request again.
 */
function fromEarlierLayout(
  thenFilters: readonly string[] | undefined,
  token: string | undefined,
): string | undefined {
  if (token === undefined || thenFilters === undefined) return token;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      phase?: unknown;
      nextPartitionKey?: unknown;
    };
    if (parsed.phase === undefined && typeof parsed.nextPartitionKey === 'string') {
      return Buffer.from(JSON.stringify({ ...parsed, phase: thenFilters.length })).toString(
        'base64url',
      );
    }
  } catch {
    // Not a token of ours: the page reader says so.
  }
  return token;
}

interface ReadRow {
  entry: RequestIndexEntry;
  /** From the earlier layout's partitions. */
  legacy: boolean;
}

/** The filter a query's range is scoped by: an account's rows, or a connector's. */
type Scope = 'account' | 'connector';

/** The RowKey of the entry's row in the new layout's range for `scope`. */
function newRowKeyOf(entry: RequestIndexEntry, scope: Scope, accountKey: AccountKeyOf): string {
  const [, connectorRow, accountRow] = rowsOf(entry, accountKey);
  return (scope === 'account' ? accountRow : connectorRow)!.rowKey;
}

/**
 * Which of these RowKeys (of one range, for requests the earlier layout indexed as pending)
 * have rows in the new layout: those requests ended (or were resubmitted) since, and the new
 * range, read first, listed them already. One query over the keys' span for a whole page:
 * rows in that span other than these are few (requests received before the upgrade and
 * indexed again since), and are passed over.
 */
async function listedInNewRange(client: TableClient, rowKeys: string[]): Promise<Set<string>> {
  const listed = new Set<string>();
  if (rowKeys.length === 0) return listed;
  const wanted = new Set(rowKeys);
  const sorted = [...wanted].sort();
  const filter = odata`PartitionKey eq ${PARTITION} and RowKey ge ${sorted[0]!} and RowKey le ${sorted.at(-1)!}`;
  await guardStorage('read the request list', async () => {
    for await (const row of client.listEntities({ queryOptions: { filter, select: ['RowKey'] } })) {
      if (wanted.has(row.rowKey!)) listed.add(row.rowKey!);
    }
  });
  return listed;
}

/**
 * The key range a query reads in the index's partition (the account key's, else the
 * connector's, else all requests), then the account's rows written before rows were keyed
 * by the account's key (under its spelling, when that differs), then the earlier layout's
 * partition for the same filter. `earlier`: whether a row read comes from either of those.
 *
 * An account filter that names no connector, when the configured connectors give the ID
 * different keys (a bare name a Graph connector completes), reads all requests by the key
 * column instead, as one range kept newest first.
 */
function indexFilters(
  query: RequestIndexQuery,
  keys: AccountKeys,
): {
  filter: string;
  thenFilters?: string[];
  scope?: Scope;
  earlier: (row: TableEntityResult<IndexRow>) => boolean;
} {
  const properties: string[] = [];
  if (query.accountId !== undefined && query.connector !== undefined) {
    properties.push(odata`connector eq ${query.connector}`);
  }
  if (query.statuses !== undefined && query.statuses.length > 0) {
    properties.push(`(${query.statuses.map((status) => odata`status eq ${status}`).join(' or ')})`);
  }
  const withProperties = (range: string) => [range, ...properties].join(' and ');
  const inRange = (prefix: string) =>
    withProperties(
      odata`PartitionKey eq ${PARTITION} and RowKey ge ${prefix} and RowKey lt ${prefixEnd(prefix)}`,
    );
  const allRequests = odata`PartitionKey eq ${PARTITION} and RowKey lt ${ALL_ROWS_END}`;
  const inLegacyPartition = (row: TableEntityResult<IndexRow>) => row.partitionKey !== PARTITION;
  if (query.accountId !== undefined) {
    const accountId = query.accountId;
    const accountKeys = new Set(
      accountKeysOf(keys, accountId, query.connector).map(({ key }) => key),
    );
    if (accountKeys.size > 1) {
      return {
        filter: withProperties(`${allRequests} and ${accountFilter(keys, accountId, undefined)}`),
        earlier: () => false,
      };
    }
    const [key = accountId] = accountKeys;
    const legacy = odata`PartitionKey eq ${`account:${encodeTableKey(accountId)}`}`;
    const spelled = accountPrefix(accountId);
    const beforeKeys = key === accountId ? [] : [inRange(spelled)];
    return {
      filter: inRange(accountPrefix(key)),
      thenFilters: [...beforeKeys, withProperties(legacy)],
      scope: 'account',
      earlier: (row) =>
        inLegacyPartition(row) || (beforeKeys.length > 0 && row.rowKey!.startsWith(spelled)),
    };
  }
  if (query.connector !== undefined) {
    const legacy = odata`PartitionKey eq ${`connector:${encodeTableKey(query.connector)}`}`;
    return {
      filter: inRange(connectorPrefix(query.connector)),
      thenFilters: [withProperties(legacy)],
      scope: 'connector',
      earlier: inLegacyPartition,
    };
  }
  return { filter: withProperties(allRequests), earlier: () => false };
}

/**
 * An id as one segment of a RowKey: {@link encodeTableKey} keeps `~`, so it is escaped
 * too (`%7E`, which decodes back), and `~` ends the segment unambiguously.
 */
function segment(id: string): string {
  return encodeTableKey(id).replace(/~/g, '%7E');
}

function connectorPrefix(connector: string): string {
  return `c~${segment(connector)}~`;
}

function accountPrefix(accountId: string): string {
  return `a~${segment(accountId)}~`;
}

/** The first key after every key that begins with `prefix`. */
function prefixEnd(prefix: string): string {
  return `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
}

/**
 * The row that says a request's end was written: `e~<suffix>`, beside its three rows and
 * outside every range the list reads (`e` sorts after the digits and apart from `a~`, `c~`).
 */
function endMarkerOf(entry: RequestIndexEntry, suffix: string) {
  return {
    partitionKey: PARTITION,
    rowKey: `${END_MARKER_PREFIX}${suffix}`,
    requestId: entry.requestId,
    status: entry.status,
    // The call that wrote it: its own write sent again by the client's pipeline (the
    // answer lost) is known for its own.
    endedBy: randomUUID(),
  };
}

function createsOf(rows: readonly TableEntity[]): TransactionAction[] {
  return rows.map((row) => ['create', row]);
}

/** The entry's three rows: all requests, its connector's and its account key's. */
function rowsOf(entry: RequestIndexEntry, accountKey: AccountKeyOf) {
  const received = Date.parse(entry.receivedAt);
  if (Number.isNaN(received)) {
    throw new ProvisioningError('INTERNAL_ERROR', 'request index: receivedAt is not a time', {
      object: entry.requestId,
    });
  }
  const suffix = `${String(LAST_MS - received).padStart(13, '0')}_${encodeTableKey(entry.requestId)}`;
  const key = accountKey(entry.connector, entry.accountId);
  const row: IndexRow = {
    ...requestContextOf(entry),
    requestId: entry.requestId,
    connector: entry.connector,
    accountId: entry.accountId,
    accountKey: key,
    actions: entry.actions.join(','),
    status: entry.status,
    source: entry.source,
    receivedAt: entry.receivedAt,
    ...(entry.finishedAt === undefined ? {} : { finishedAt: entry.finishedAt }),
  };
  return [
    suffix,
    `${connectorPrefix(entry.connector)}${suffix}`,
    `${accountPrefix(key)}${suffix}`,
  ].map((rowKey) => ({ partitionKey: PARTITION, rowKey, ...row }));
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
