import { GraphRequestError } from './graph-error.js';

/** The parsed system query options of a Graph read. */
export interface ListQuery {
  top: number;
  offset: number;
  select: string[] | undefined;
  filter: string | undefined;
}

const UNSUPPORTED_OPTIONS = ['$orderby', '$search', '$expand', '$count', '$format'];
const SKIPTOKEN_PREFIX = 'sbx1:';

/**
 * Reads `$top`, `$select`, `$filter` and `$skiptoken` (graph-behaviour.md: Reads and
 * paging): `$top` defaults to 100 and may not exceed `maxTop`; `$skip` is refused.
 */
export function parseListQuery(query: URLSearchParams, maxTop: number): ListQuery {
  if (query.has('$skip')) {
    throw new GraphRequestError(
      400,
      'Request_BadRequest',
      "'$skip' is not supported by the service.",
    );
  }
  for (const option of UNSUPPORTED_OPTIONS) {
    if (query.has(option)) {
      throw new GraphRequestError(
        400,
        'Request_UnsupportedQuery',
        `The Graph sandbox does not support ${option}.`,
      );
    }
  }
  return {
    top: parseTop(query.get('$top'), maxTop),
    offset: parseSkipToken(query.get('$skiptoken')),
    select: parseSelect(query),
    filter: query.get('$filter') ?? undefined,
  };
}

/** `$select` as a list of property names, or undefined when absent. */
export function parseSelect(query: URLSearchParams): string[] | undefined {
  const raw = query.get('$select');
  if (raw === null) return undefined;
  return raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

function parseTop(raw: string | null, maxTop: number): number {
  if (raw === null) return 100;
  const top = Number(raw);
  if (!Number.isInteger(top) || top < 1 || top > maxTop) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      `Invalid page size specified: '${raw}'. Must be between 1 and ${maxTop} inclusive.`,
    );
  }
  return top;
}

function parseSkipToken(raw: string | null): number {
  if (raw === null) return 0;
  const decoded = Buffer.from(raw, 'base64url').toString('utf8');
  const offset = decoded.startsWith(SKIPTOKEN_PREFIX)
    ? Number(decoded.slice(SKIPTOKEN_PREFIX.length))
    : NaN;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new GraphRequestError(
      400,
      'Directory_ExpiredPageToken',
      'The specified page token value has expired.',
    );
  }
  return offset;
}

/**
 * One page of `items` and, when more remain, the absolute `@odata.nextLink` carrying
 * the original query with an opaque `$skiptoken` (clients must use it verbatim).
 */
export function pageOf<T>(
  items: readonly T[],
  query: ListQuery,
  link: { graphEndpoint: string; path: string; params: URLSearchParams },
): { value: T[]; nextLink: string | undefined } {
  const end = query.offset + query.top;
  const value = items.slice(query.offset, end);
  if (end >= items.length) return { value, nextLink: undefined };
  const parts: string[] = [];
  for (const [key, raw] of link.params) {
    if (key !== '$skiptoken') parts.push(`${key}=${encodeURIComponent(raw)}`);
  }
  parts.push(`$skiptoken=${Buffer.from(`${SKIPTOKEN_PREFIX}${end}`).toString('base64url')}`);
  return { value, nextLink: `${link.graphEndpoint}/v1.0${link.path}?${parts.join('&')}` };
}
