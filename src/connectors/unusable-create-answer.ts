import { ProvisioningError } from '../domain/errors';
import type { CreateAccountAnswer } from '../domain/target-answers';
import type { HttpResult } from './http/transport';

/**
 * A create the server answered with a 2xx it cannot be read from: whether the account
 * exists only a read can tell (the step machine reads it back by its account ID), on
 * every connector (DESIGN invariant 11).
 */
export function unusableCreateAnswer(
  result: HttpResult,
  fault: string,
  context: { connector: string; accountId: string },
): CreateAccountAnswer {
  const error = new ProvisioningError(
    'TARGET_RESPONSE_INVALID',
    `connector "${context.connector}": ${result.describe} for account "${context.accountId}" ` +
      fault,
    { object: context.accountId, status: result.status },
  );
  return { outcome: 'unconfirmed', maybeOurs: true, fault, error: error.toJSON() };
}
