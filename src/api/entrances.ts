import type { HttpRequest } from '@azure/functions';
import {
  allows,
  KEY_HOLDER,
  parseClientPrincipal,
  roleFor,
  type Access,
  type Caller,
} from './caller';
import type { ApiHandler } from './guard-handler';
import { problem } from './http-problem';

/**
 * How a route is reached. `key`: at `/api/<route>` with a function key, which the Functions
 * host (or the local host) checked before the handler runs. `signed-in`: at
 * `/api/signed-in/<route>`, open to the platform, with the caller signed in through App
 * Service Authentication, whose app roles the handler checks.
 */
export type Entrance = 'key' | 'signed-in';

/** The path prefix of the signed-in entrance, under /api. */
export const SIGNED_IN_PREFIX = 'signed-in';

/** Where App Service Authentication signs a browser in with Entra ID. */
export const SIGN_IN_PATH = '/.auth/login/aad';

const callers = new WeakMap<HttpRequest, Caller>();

/** The caller of a request that passed its entrance. */
export function callerOf(request: HttpRequest): Caller | undefined {
  return callers.get(request);
}

/**
 * A signed-in browser sends its session cookie with any request, also one another site's
 * page makes it send (cross-site request forgery). Browsers say where a request came from
 * (Sec-Fetch-Site); a change that did not come from this site is refused. Reads cannot be
 * read back by another site (no CORS), and programs that are not browsers send no such
 * header.
 */
function crossSite(request: HttpRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const site = request.headers.get('sec-fetch-site');
  return site !== null && site !== 'same-origin' && site !== 'none';
}

/**
 * A change must say it is JSON. An older browser sends no Sec-Fetch-Site, and another site's
 * page can still make it send a form (`text/plain` bodies parse as JSON) or a body-less POST
 * with the session cookie; a JSON Content-Type it cannot send across sites without a CORS
 * preflight, which this API never answers.
 */
function notJson(request: HttpRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const type = request.headers.get('content-type') ?? '';
  return !/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type.trim());
}

/** The key entrance: the key was checked before the handler, and a key holder may do everything. */
export function keyEntrance(handler: ApiHandler): ApiHandler {
  return (request, context) => {
    callers.set(request, KEY_HOLDER);
    return handler(request, context);
  };
}

/**
 * The signed-in entrance: the principal App Service Authentication vouches for, with the
 * app role the route's access needs. Where App Service Authentication is not on, nobody
 * vouches for `x-ms-client-principal` (a caller could send it), so nobody gets in here.
 */
export function signedInEntrance(
  access: Access,
  handler: ApiHandler,
  options: { appServiceAuthentication: boolean },
): ApiHandler {
  return async (request, context) => {
    if (!options.appServiceAuthentication) {
      return problem(
        401,
        'UNAUTHORIZED',
        'signing in is not available here (App Service Authentication is off): call /api/... with a function key',
      );
    }
    if (crossSite(request)) {
      return problem(
        403,
        'FORBIDDEN',
        'a change sent from another site is refused: the session cookie came with it, the user did not',
      );
    }
    const caller = parseClientPrincipal(request.headers);
    if (caller === undefined) {
      return problem(401, 'UNAUTHORIZED', 'sign in with your organisation account first', {
        signIn: SIGN_IN_PATH,
      });
    }
    if (!allows(caller, access)) {
      const role = roleFor(access);
      context.warn(
        `${caller.name} lacks app role ${role} for ${request.method} ${new URL(request.url).pathname}`,
      );
      return problem(
        403,
        'FORBIDDEN',
        `this needs the app role ${role}; ${caller.name} has ${caller.roles.length === 0 ? 'no app role of this service' : caller.roles.join(', ')}`,
        { object: role },
      );
    }
    if (notJson(request)) {
      return problem(
        403,
        'FORBIDDEN',
        'a change through the signed-in entrance must be sent as JSON (Content-Type: application/json): a form or another site cannot',
      );
    }
    callers.set(request, caller);
    return handler(request, context);
  };
}
