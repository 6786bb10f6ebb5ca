import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { linkAccountByOperator } from '../workflows/operator-link';
import type { ApiDeps } from './api-deps';
import { FUNCTION_KEY_HOLDER, submitterOf } from './caller';
import { callerOf } from './entrances';
import { problem, unknownConnector } from './http-problem';
import { readJsonBody } from './read-body';

/**
 * `POST /api/connectors/{name}/accounts/{accountId}/link` with `{ "targetId", "reason" }`:
 * after a lookup refused the account ID with ACCOUNT_EXISTS (the object the service linked was
 * deleted outside, and another now holds the account ID), an operator who found that object
 * is this person's links the account ID to it. Only when the target shows exactly that: the
 * linked object gone, the account ID held by `targetId` (409 naming what it shows otherwise);
 * 409 ACCOUNT_BUSY while a request holds the account. Who, why and the object linked before
 * are kept in the account's record. 200 with `linked` (false: linked to it already); a
 * refusal is answered by the route's guard (`guardHandler`) with its code's status.
 */
export function linkAccountHandler(deps: Pick<ApiDeps, 'services' | 'now' | 'keyHolder'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const accountId = request.params.accountId ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const read = await readJsonBody(request);
    if ('response' in read) return read.response;
    const { targetId, reason } = read.body as { targetId?: unknown; reason?: unknown };
    if (typeof targetId !== 'string' || typeof reason !== 'string') {
      return problem(
        400,
        'REQUEST_INVALID',
        'the body must name the "targetId" of the object that holds the account ID and a "reason" (text)',
        { object: accountId },
      );
    }
    const operator = submitterOf(callerOf(request), deps.keyHolder ?? FUNCTION_KEY_HOLDER);
    const result = await linkAccountByOperator(
      { ...services, now: () => deps.now().getTime() },
      name,
      accountId,
      { targetId, reason, byName: operator ?? 'an operator', at: deps.now().toISOString() },
    );
    if (result.linked) {
      context.log(`connector ${name}: account ${accountId} linked to ${targetId} by an operator`);
    }
    return { status: 200, jsonBody: result };
  };
}
