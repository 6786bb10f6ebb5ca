import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { endGroupsCut } from '../workflows/end-groups-cut';
import type { ApiDeps } from './api-deps';
import { FUNCTION_KEY_HOLDER, submitterOf } from './caller';
import { callerOf } from './entrances';
import { problem, unknownConnector } from './http-problem';
import { readJsonBody } from './read-body';

/**
 * `POST /api/connectors/{name}/user-groups/end-cut` with `{ "reason": "..." }`: an operator
 * ends the cut kept for a SCIM connector's user `groups` attribute (a connector caught it
 * leaving out a group, and its silence is no longer believed), once the server is mended and
 * a compatibility run found the attribute complete after the cut (409 until then, naming
 * what is missing). Who ended it is recorded as a quarantine release records it. 200 with
 * `ended` (false: no cut was kept) and the verdict kept now; a refusal is answered by the
 * route's guard (`guardHandler`) with its code's status.
 */
export function endGroupsCutHandler(deps: Pick<ApiDeps, 'services' | 'now' | 'keyHolder'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const read = await readJsonBody(request);
    if ('response' in read) return read.response;
    const { reason } = read.body as { reason?: unknown };
    if (typeof reason !== 'string') {
      return problem(400, 'REQUEST_INVALID', 'the body must name a "reason" (text)', {
        object: name,
      });
    }
    const operator = submitterOf(callerOf(request), deps.keyHolder ?? FUNCTION_KEY_HOLDER);
    const result = await endGroupsCut(services, name, {
      reason,
      byName: operator ?? 'an operator',
      at: deps.now().toISOString(),
    });
    if (result.ended) context.log(`connector ${name}: the user groups cut ended by an operator`);
    return { status: 200, jsonBody: result };
  };
}
