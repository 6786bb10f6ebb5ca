import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { isProvisioningError } from '../domain/errors';
import type { ConnectorRegistry } from '../runtime/connector-registry';

/**
 * `POST /api/connectors/{name}/status`: the spec's "Check status". 200 with the findings
 * whether or not the check passed (the check ran); 404 for an unknown connector.
 */
export function connectorStatusHandler(registry: () => ConnectorRegistry) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const connector = registry().get(name);
    if (connector === undefined) {
      return {
        status: 404,
        jsonBody: {
          error: { code: 'CONNECTOR_NOT_FOUND', message: `unknown connector "${name}"` },
        },
      };
    }
    try {
      const status = await connector.checkStatus();
      context.log(`status check of connector ${name}: ${status.ok ? 'ok' : 'failed'}`);
      return { status: 200, jsonBody: status };
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      context.warn(`status check of connector ${name} failed: ${error.code}`);
      return { status: 502, jsonBody: { error: error.toJSON() } };
    }
  };
}
