import { ProvisioningError } from '../domain/errors';

/** The HTTP status of a storage SDK error (RestError), if the service answered. */
export function storageStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The storage error code of a storage SDK error (RestError), if the service sent one. */
export function storageCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Runs a storage call and turns an SDK failure into a ProvisioningError that callers can
 * branch on: retryable for network errors, 408, 429 and 5xx. The message names the
 * operation and the storage error code only, never the SDK's message, which may quote
 * entity data or request details.
 *
 * @example
 * const row = await guardStorage('read the account link', () => client.getEntity(pk, rk));
 */
export async function guardStorage<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storageFailure(operation, error);
  }
}

/** The ProvisioningError for a failed storage call (see {@link guardStorage}). */
export function storageFailure(operation: string, error: unknown): ProvisioningError {
  if (error instanceof ProvisioningError) return error;
  const status = storageStatus(error);
  const detail = [status === undefined ? undefined : `HTTP ${status}`, storageCode(error)]
    .filter((part) => part !== undefined)
    .join(', ');
  const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
  return new ProvisioningError(
    'INTERNAL_ERROR',
    `storage: could not ${operation}${detail === '' ? '' : ` (${detail})`}`,
    { retryable, ...(status === undefined ? {} : { status }), cause: error },
  );
}
