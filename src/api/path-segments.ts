import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { problem } from './http-problem';

/** A UTF-16 surrogate without its partner: what `%ED%A0%80` would decode to, were it allowed. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What decoders put where the bytes were not UTF-8. */
const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * The first segment of a URL path (as sent, percent-encoded) that does not decode to
 * UTF-8 text (RFC 3986 §2.1 with RFC 3629): an encoded surrogate such as `%ED%A0%80`, a
 * sequence cut short (`%E0%A4%A`), a byte no UTF-8 sequence starts with; else undefined.
 *
 * @example
 * malformedPathSegment('/api/connectors/x/accounts/%ED%A0%80'); // '%ED%A0%80'
 */
export function malformedPathSegment(path: string): string | undefined {
  return path.split('/').find((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * A route parameter, as a host decoded it, that cannot be what the caller sent as text: it
 * holds a lone surrogate, or U+FFFD, which a decoder substitutes for bytes that were not
 * UTF-8 (in Azure the Functions host decodes route parameters before the handler runs).
 */
export function malformedRouteParam(
  params: Readonly<Record<string, string>>,
): { name: string; value: string } | undefined {
  const found = Object.entries(params).find(
    ([, value]) => LONE_SURROGATE.test(value) || value.includes(REPLACEMENT_CHARACTER),
  );
  return found === undefined ? undefined : { name: found[0], value: found[1] };
}

/**
 * 400 `PATH_SEGMENT_INVALID` naming the segment as it was sent, or undefined when every
 * segment of the request's path is well-formed. Asked before any route runs, so no
 * handler ever meets such a segment (and none answers 500 for it).
 */
export function pathSegmentProblem(request: HttpRequest): HttpResponseInit | undefined {
  const segment = malformedPathSegment(rawPath(request.url));
  if (segment !== undefined) return malformedSegmentAnswer(segment);
  const param = malformedRouteParam(request.params);
  if (param === undefined) return undefined;
  const shown = escapeUnpaired(param.value);
  return problem(
    400,
    'PATH_SEGMENT_INVALID',
    `the path parameter "${param.name}" ("${shown}") is not UTF-8 text: it was not percent-encoded UTF-8 when sent`,
    { object: shown },
  );
}

/** 400 `PATH_SEGMENT_INVALID` for a segment `malformedPathSegment` found, named as sent. */
export function malformedSegmentAnswer(segment: string): HttpResponseInit {
  return problem(
    400,
    'PATH_SEGMENT_INVALID',
    `the path segment "${segment}" is not percent-encoded UTF-8: encode the text as UTF-8, then percent-encode it`,
    { object: segment },
  );
}

/** The path of a request URL as sent (still percent-encoded). */
function rawPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** Lone surrogates and U+FFFD written as `\uXXXX`, so the message shows what arrived. */
function escapeUnpaired(value: string): string {
  return value.replace(
    new RegExp(`${LONE_SURROGATE.source}|${REPLACEMENT_CHARACTER}`, 'g'),
    (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
