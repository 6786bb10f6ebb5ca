import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { httpStatusOf } from '../domain/error-catalogue';
import { isProvisioningError } from '../domain/errors';
import { errorResponse, problem } from './http-problem';

/** An API handler: what the routes serve, in Azure and on the local host. */
export type ApiHandler = (
  request: HttpRequest,
  context: InvocationContext,
) => Promise<HttpResponseInit>;

/**
 * Every route's last line of defence: a `ProvisioningError` nobody answered (storage or
 * Key Vault unavailable, a target failing) becomes a JSON error with its code and the
 * status the error catalogue gives it; anything else is a 500 that says nothing of its cause (it may
 * hold what it should not) and is logged for the operator.
 */
export function guardHandler(name: string, handler: ApiHandler): ApiHandler {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (isProvisioningError(error)) {
        context.warn(`${name}: ${error.code}`);
        return errorResponse(httpStatusOf(error), error.toJSON());
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
