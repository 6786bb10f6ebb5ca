import type { TableClient, TableEntityResult } from '@azure/data-tables';
import { ProvisioningError } from '../domain/errors';
import { guardStorage } from './storage-failure';

/** A page of a query as callers see it: the entries and, when more follow, the token for them. */
export interface TablePage<T> {
  entries: T[];
  continuationToken?: string;
}

export interface PageQuery<Row extends object, T> {
  /** OData filter ('' for none), values quoted by the SDK's `odata` tag. */
  filter: string;
  /** Page size asked for; undefined takes `defaultLimit`. */
  limit: number | undefined;
  defaultLimit: number;
  maxLimit: number;
  /** From a previous page's answer. */
  continuationToken: string | undefined;
  /** What the entries are, for messages: "the journal", "the request list". */
  of: string;
  fromRow(row: TableEntityResult<Row>): T;
}

/**
 * One page of a table query. The service may end a page early (and even send an empty one)
 * with a token: this reads on until the page is full or the table is exhausted, so a page
 * holds fewer than `limit` entries only when it is the last one. The SDK's token is
 * standard base64 (with + / =): callers get it as base64url, to put in a query string as it
 * is; a token that is not one of ours is REQUEST_INVALID naming `continuationToken`.
 *
 * @example
 * await readPage(client, { filter, limit: 50, defaultLimit: 100, maxLimit: 1000, continuationToken, of: 'the journal', fromRow });
 */
export async function readPage<Row extends object, T>(
  client: TableClient,
  query: PageQuery<Row, T>,
): Promise<TablePage<T>> {
  const limit = query.limit ?? query.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > query.maxLimit) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `limit must be a whole number from 1 to ${query.maxLimit}`,
      { object: 'limit' },
    );
  }
  let continuationToken =
    query.continuationToken === undefined
      ? undefined
      : fromPageToken(query.continuationToken, query.of);
  const entries: T[] = [];
  do {
    const pages = client
      .listEntities<Row>({ queryOptions: query.filter === '' ? {} : { filter: query.filter } })
      .byPage({
        maxPageSize: limit - entries.length,
        ...(continuationToken === undefined ? {} : { continuationToken }),
      });
    const page = await guardStorage(`read ${query.of}`, async () => {
      const next = await pages.next();
      return next.done === true ? undefined : next.value;
    });
    for (const row of page ?? []) entries.push(query.fromRow(row));
    continuationToken = page?.continuationToken;
  } while (entries.length < limit && continuationToken !== undefined);
  return {
    entries,
    ...(continuationToken === undefined
      ? {}
      : { continuationToken: Buffer.from(continuationToken, 'base64').toString('base64url') }),
  };
}

function fromPageToken(token: string, of: string): string {
  const json = Buffer.from(token, 'base64url').toString('utf8');
  try {
    const parsed = JSON.parse(json) as { nextPartitionKey?: unknown };
    if (typeof parsed.nextPartitionKey === 'string') return Buffer.from(json).toString('base64');
  } catch {
    // reported below
  }
  throw new ProvisioningError('REQUEST_INVALID', `continuationToken is not a token of ${of}`, {
    object: 'continuationToken',
  });
}
