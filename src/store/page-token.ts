import { ProvisioningError } from '../domain/errors';

/**
 * A Table Storage continuation token as callers see it: the SDK's token is standard base64
 * (with + / =), handed out as base64url so that it goes into a query string as it is.
 *
 * @example
 * toPageToken(page.continuationToken); // 'eyJuZXh0UGFydGl0aW9uS2V5Ijoi...'
 */
export function toPageToken(sdkToken: string): string {
  return Buffer.from(sdkToken, 'base64').toString('base64url');
}

/**
 * The SDK's token for a caller's token (the inverse of {@link toPageToken}); REQUEST_INVALID
 * naming `continuationToken` when it is not one of ours.
 *
 * @example
 * fromPageToken(query.continuationToken, 'journal');
 */
export function fromPageToken(token: string, of: string): string {
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
