import { isProvisioningError, type SerializedError } from '../../domain/errors';
import type { IoResult } from '../../domain/step-machine';
import type { WorkflowServices } from '../workflow-services';

/**
 * The read a step machine asked a write activity to make once its write was answered
 * (`readBack` in the write's input): verification only, it decides nothing about the write
 * (DESIGN invariant 9). A read that fails comes back as its error, "read-back failed: why",
 * never thrown: a retry of the activity would send the answered write again. The machine
 * then reads in an activity of its own.
 *
 * @example
 * return { answers, readBack: await readAfterWrite(s, 'writeMemberships', () => connector.readMemberships(account, ids)) };
 */
export async function readAfterWrite<T>(
  s: WorkflowServices,
  activity: string,
  read: () => Promise<T>,
): Promise<IoResult<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    const failure: SerializedError = isProvisioningError(error)
      ? error.toJSON()
      : {
          code: 'INTERNAL_ERROR',
          message: error instanceof Error ? error.message : String(error),
          retryable: true,
        };
    s.logger.warn(`activity ${activity}: read-back failed: ${failure.code}`);
    return { ok: false, error: { ...failure, message: `read-back failed: ${failure.message}` } };
  }
}
