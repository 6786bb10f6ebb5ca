import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { httpStatusOf } from '../domain/error-catalogue';
import { isProvisioningError } from '../domain/errors';
import { errorResponse, problem } from './http-problem';
import { pathSegmentProblem } from './path-segments';

/** An API handler: what the routes serve, in Azure and on the local host. */
export type ApiHandler = (
  request: HttpRequest,
  context: InvocationContext,
) => Promise<HttpResponseInit>;

/**
 * Every route's first and last line of defence: a path segment that is not percent-encoded
 * UTF-8 is answered 400 before the route runs (path-segments.ts); then a `ProvisioningError` nobody answered (storage or
 * Key Vault unavailable, a target failing) becomes a JSON error with its code and the
 * status the error catalogue gives it; anything else is a 500 that says nothing of its cause (it may
 * hold what it should not) and is logged for the operator.
 */
export function guardHandler(name: string, handler: ApiHandler): ApiHandler {
  return async (request, context) => {
    const badPath = pathSegmentProblem(request);
    if (badPath !== undefined) return badPath;
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
