import { isProvisioningError } from '../domain/errors';

/**
 * Runs a read a write call needs before it can answer (the lookup after a create's 409),
 * where an earlier attempt of that write may have been applied (`maybeApplied`: its answer
 * lost). A failure of the read then says so (`details.maybeApplied`): the step reads the
 * account back, and the write's intent stays claimed, rather than take the write for refused.
 *
 * @example
 * const existing = await readAfterWrite(result.maybeAppliedBefore, () => findAccount(id));
 */
export async function readAfterWrite<T>(maybeApplied: boolean, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!maybeApplied || !isProvisioningError(error)) throw error;
    throw error.withDetails({ maybeApplied: true });
  }
}
