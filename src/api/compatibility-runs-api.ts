import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { CompatibilityVerdict } from '../domain/compatibility-result';
import type { WorkflowServices } from '../workflows/workflow-services';
import type { ApiDeps } from './api-deps';
import { problem, unknownConnector } from './http-problem';

/** What the status check says of a connector's last compatibility run. */
export interface LastRunSummary {
  at: string;
  verdict: CompatibilityVerdict;
  summary: string;
  jobId?: string;
}

/**
 * The connector's last compatibility run in brief, for the status check: null when its
 * kind has a run but none was kept yet, undefined when its kind has none.
 */
export async function lastRunSummary(
  services: Pick<WorkflowServices, 'registry' | 'compatibility'>,
  name: string,
): Promise<LastRunSummary | null | undefined> {
  if (services.registry.kindOf(name)?.compatibilityRun === undefined) return undefined;
  const run = await services.compatibility.last(name);
  if (run === undefined) return null;
  return {
    at: run.at,
    verdict: run.verdict,
    summary: run.summary,
    ...(run.jobId === undefined ? {} : { jobId: run.jobId }),
  };
}

/**
 * `GET /api/connectors/{name}/compatibility-run`: the connector's last compatibility run,
 * as its job answered it (points with evidence, suggested settings, action table).
 */
export function lastCompatibilityRunHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    const kind = services.registry.kindOf(name);
    if (kind === undefined) return unknownConnector(name);
    if (kind.compatibilityRun === undefined) {
      return problem(
        400,
        'OPERATION_NOT_SUPPORTED',
        `connector "${name}" (${kind.kind}) has no compatibility run: it is for SCIM servers`,
        { object: name },
      );
    }
    const run = await services.compatibility.last(name);
    if (run === undefined) {
      return problem(404, 'NOT_FOUND', `connector "${name}" has no compatibility run yet`, {
        object: name,
      });
    }
    return { status: 200, jsonBody: run };
  };
}
