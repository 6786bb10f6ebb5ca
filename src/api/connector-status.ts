import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { isProvisioningError } from '../domain/errors';
import type { ApiDeps } from './api-deps';
import { errorResponse, unknownConnector } from './http-problem';

/**
 * `POST /api/connectors/{name}/status`: the spec's "Check status". 200 with the findings
 * whether or not the check passed (the check ran); 404 for an unknown connector.
 */
export function connectorStatusHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const connector = (await deps.services()).registry.get(name);
    if (connector === undefined) return unknownConnector(name);
    const probe = request.query.get('probe') === 'true';
    try {
      const status = await connector.checkStatus({ probe });
      context.log(`status check of connector ${name}: ${status.ok ? 'ok' : 'failed'}`);
      return { status: 200, jsonBody: status };
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      context.warn(`status check of connector ${name} failed: ${error.code}`);
      return errorResponse(502, error.toJSON());
    }
  };
}
