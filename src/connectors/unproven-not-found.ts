import { ProvisioningError } from '../domain/errors';

/**
 * A 404 to a read by id that does not carry the target's own "no such object" error body
 * (Graph: `error.code` Request_ResourceNotFound; SCIM: an RFC 7644 §3.12 error with status
 * 404): a proxy, a gateway or a wrong base URL may have answered, so it proves nothing about
 * the object (DESIGN invariant 11). The caller could not tell whether the object is gone.
 */
export function unprovenNotFound(
  connector: string,
  describe: string,
  objectId: string,
): ProvisioningError {
  return new ProvisioningError(
    'TARGET_RESPONSE_INVALID',
    `connector "${connector}": ${describe} answered 404 without the target's own not-found ` +
      `error (a proxy, a gateway or a wrong base URL may have answered): could not tell whether ` +
      `${objectId} is gone`,
    { object: objectId, status: 404 },
  );
}
