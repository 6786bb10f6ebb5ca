import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { isProvisioningError } from '../domain/errors';
import type { ApiDeps } from './api-deps';
import { lastRunSummary } from './compatibility-runs-api';
import { errorResponse, unknownConnector } from './http-problem';
import { quarantineOf } from './quarantine-api';

/**
 * `POST /api/connectors/{name}/status`: the spec's "Check status". 200 with the findings
 * whether or not the check passed (the check ran), for kinds with a compatibility run the
 * date and verdict of the last one (`lastCompatibilityRun`, null when none was kept), and
 * the connector's quarantine (issue 14); 404 for an unknown connector.
 * The health report keeps its outcome as the connector's last status check.
 */
export function connectorStatusHandler(deps: Pick<ApiDeps, 'services' | 'now'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    const connector = services.registry.get(name);
    if (connector === undefined) return unknownConnector(name);
    const probe = request.query.get('probe') === 'true';
    try {
      const status = await connector.checkStatus({ probe });
      context.log(`status check of connector ${name}: ${status.ok ? 'ok' : 'failed'}`);
      await services.connectorStates
        .recordStatusCheck(name, {
          at: deps.now().toISOString(),
          ok: status.ok,
          summary: status.summary,
          ...(status.error === undefined ? {} : { error: status.error }),
        })
        .catch((error: unknown) => {
          context.warn(
            `status check of connector ${name} not kept for the health report: ${isProvisioningError(error) ? error.code : String(error)}`,
          );
        });
      // The service's own store failing is no failure of the target: the check still answers.
      const notRead = (what: string) => (error: unknown) => {
        context.warn(
          `${what} of connector ${name} not read: ${isProvisioningError(error) ? error.message : String(error)}`,
        );
        return undefined;
      };
      const [lastRun, quarantine] = await Promise.all([
        lastRunSummary(services, name).catch(notRead('last compatibility run')),
        quarantineOf(services, name).catch(notRead('quarantine')),
      ]);
      return {
        status: 200,
        jsonBody: {
          ...status,
          ...(lastRun === undefined ? {} : { lastCompatibilityRun: lastRun }),
          ...(quarantine === undefined ? {} : { quarantine }),
        },
      };
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      context.warn(`status check of connector ${name} failed: ${error.code}`);
      return errorResponse(502, error.toJSON());
    }
  };
}
