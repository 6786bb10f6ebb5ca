import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { callerOf } from './entrances';

/**
 * `GET /api/me`: who the API takes the caller for and what app roles that gives: the
 * console shows it and offers only what the roles allow (the API enforces them anyway).
 */
export function meHandler() {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const caller = callerOf(request);
    return { status: 200, jsonBody: caller ?? { kind: 'unknown', roles: [] } };
  };
}
