import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { isProvisioningError, type ErrorCode } from '../domain/errors';
import { errorResponse, problem } from './http-problem';

/** An API handler: what the routes serve, in Azure and on the local host. */
export type ApiHandler = (
  request: HttpRequest,
  context: InvocationContext,
) => Promise<HttpResponseInit>;

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  REQUEST_INVALID: 400,
  OPERATION_NOT_SUPPORTED: 400,
  NOT_FOUND: 404,
  CONNECTOR_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  GROUP_NOT_FOUND: 404,
  REQUEST_CONFLICT: 409,
  REQUEST_TOO_LARGE: 413,
  CONFIG_INVALID: 500,
};

/**
 * Every route's last line of defence: a `ProvisioningError` nobody answered (storage or
 * Key Vault unavailable, a target failing) becomes a JSON error with its code, 503 when
 * trying again may help; anything else is a 500 that says nothing of its cause (it may
 * hold what it should not) and is logged for the operator.
 */
export function guardHandler(name: string, handler: ApiHandler): ApiHandler {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (isProvisioningError(error)) {
        context.warn(`${name}: ${error.code}`);
        const status = STATUS_BY_CODE[error.code] ?? (error.retryable ? 503 : 502);
        return errorResponse(status, error.toJSON());
      }
      context.error(
        `${name}: unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
      );
      return problem(
        500,
        'INTERNAL_ERROR',
        'the service failed unexpectedly; the operator log has the details',
      );
    }
  };
}
