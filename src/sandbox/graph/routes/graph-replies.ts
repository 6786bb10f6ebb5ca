import type { GraphReply } from '../graph-error.js';

/** A JSON reply with Graph's content type. */
export function jsonReply(status: number, body: unknown): GraphReply {
  return { status, headers: { 'Content-Type': 'application/json;odata.metadata=minimal' }, body };
}

/** 204 No Content, the answer of Graph's PATCH, DELETE and `$ref` writes. */
export function noContent(): GraphReply {
  return { status: 204, headers: {} };
}

/** A collection page: `@odata.context`, `value`, and `@odata.nextLink` while more remain. */
export function collectionReply(
  graphEndpoint: string,
  metadataFragment: string,
  page: { value: unknown[]; nextLink: string | undefined },
): GraphReply {
  return jsonReply(200, {
    '@odata.context': `${graphEndpoint}/v1.0/$metadata#${metadataFragment}`,
    ...(page.nextLink === undefined ? {} : { '@odata.nextLink': page.nextLink }),
    value: page.value,
  });
}
