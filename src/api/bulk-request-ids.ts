/**
 * The requestId of a bulk request that names none, derived from its queue message's id:
 * `queue-<messageId>`, or `queue-<messageId>-<index>` for the element at `index` of a message
 * holding an array of requests. A queue delivers at least once, and a redelivered message
 * keeps its id, so a redelivery is a duplicate of the request it already started instead of
 * a second run under a new id (which would undo whatever happened in between).
 *
 * @example
 * bulkRequestId('8d1f…', 2); // 'queue-8d1f…-2'
 */
export function bulkRequestId(messageId: string, index?: number): string {
  // Queue Storage ids are GUIDs; anything else is made to fit the requestId pattern.
  const id = `queue-${messageId.replace(/[^A-Za-z0-9._-]/g, '-')}`.slice(0, 90);
  return index === undefined ? id : `${id}-${index}`;
}

/**
 * The message with `bulkRequestId` filled in as the requestId of each request that names
 * none (the message itself, or each element of an array); anything else as it is.
 */
export function withBulkRequestIds(message: unknown, messageId: string): unknown {
  if (Array.isArray(message)) {
    return message.map((element: unknown, index) => withRequestId(element, messageId, index));
  }
  return withRequestId(message, messageId, undefined);
}

function withRequestId(request: unknown, messageId: string, index: number | undefined): unknown {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return request;
  if ('requestId' in request) return request;
  return { requestId: bulkRequestId(messageId, index), ...request };
}
