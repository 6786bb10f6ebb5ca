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
  /**
   * Filters read after `filter` is exhausted, in order, as if their rows followed: a page
   * may span them, and the token says which one it stopped in.
   */
  thenFilters?: readonly string[];
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
 * is; a token that is not one of ours is REQUEST_INVALID naming `continuationToken`. With
 * `thenFilters`, the token carries the index of the filter it stopped in (`phase`); one
 * without it reads on in the first.
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
  const filters = [query.filter, ...(query.thenFilters ?? [])];
  let { phase, position } =
    query.continuationToken === undefined
      ? { phase: 0, position: undefined }
      : fromPageToken(query.continuationToken, query.of, filters.length);
  const entries: T[] = [];
  let more = true;
  while (more && entries.length < limit) {
    const filter = filters[phase]!;
    const pages = client
      .listEntities<Row>({ queryOptions: filter === '' ? {} : { filter } })
      .byPage({
        maxPageSize: limit - entries.length,
        ...(position === undefined ? {} : { continuationToken: position }),
      });
    const page = await guardStorage(`read ${query.of}`, async () => {
      const next = await pages.next();
      return next.done === true ? undefined : next.value;
    });
    for (const row of page ?? []) entries.push(query.fromRow(row));
    position = page?.continuationToken;
    if (position === undefined) {
      more = phase < filters.length - 1;
      if (more) phase += 1;
    }
  }
  return {
    entries,
    ...(more ? { continuationToken: toPageToken(phase, position, filters.length > 1) } : {}),
  };
}

/** Ours: the SDK's token (JSON in base64) with the phase added when there are several, as base64url. */
function toPageToken(phase: number, position: string | undefined, phased: boolean): string {
  const sdk =
    position === undefined
      ? {}
      : (JSON.parse(Buffer.from(position, 'base64').toString('utf8')) as object);
  return Buffer.from(JSON.stringify({ ...sdk, ...(phased ? { phase } : {}) })).toString(
    'base64url',
  );
}

function fromPageToken(
  token: string,
  of: string,
  phases: number,
): { phase: number; position: string | undefined } {
  const json = Buffer.from(token, 'base64url').toString('utf8');
  try {
    const { phase = 0, ...sdk } = JSON.parse(json) as {
      phase?: unknown;
      nextPartitionKey?: unknown;
    };
    if (typeof phase === 'number' && Number.isInteger(phase) && phase >= 0 && phase < phases) {
      if (typeof sdk.nextPartitionKey === 'string') {
        return { phase, position: Buffer.from(JSON.stringify(sdk)).toString('base64') };
      }
      if (phase > 0 && Object.keys(sdk).length === 0) return { phase, position: undefined };
    }
  } catch {
    // reported below
  }
  throw new ProvisioningError('REQUEST_INVALID', `continuationToken is not a token of ${of}`, {
    object: 'continuationToken',
  });
}
