import { GraphRequestError } from './graph-error.js';

/** A request target after `/v1.0`: decoded segments, the raw path and the query. */
export interface GraphTarget {
  segments: string[];
  rawPath: string;
  query: URLSearchParams;
}

/**
 * Splits `/groups/{id}/members/$ref?$top=5` (from a URL path after `/v1.0`, or a
 * `$batch` sub-request `url`) into decoded segments and query.
 */
export function parseGraphTarget(pathAndQuery: string): GraphTarget {
  const relative = pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`;
  const queryAt = relative.indexOf('?');
  const rawPath = queryAt === -1 ? relative : relative.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : relative.slice(queryAt + 1));
  try {
    const segments = rawPath
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
    if (segments[segments.length - 1] === '') segments.pop();
    return { segments, rawPath, query };
  } catch {
    throw new GraphRequestError(400, 'BadRequest', 'The request URI is not valid.');
  }
}
