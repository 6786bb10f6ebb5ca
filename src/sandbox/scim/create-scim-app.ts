import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { parseProjection } from './attribute-projection.js';
import { checkCredentials } from './check-credentials.js';
import { PROXY_NOT_FOUND_PAGE, type ProxyNotFoundBody } from '../faults/proxy-not-found.js';
import { applyFaultPlan } from './fault-plan-middleware.js';
import { refusePasswordEchoed } from './password-echo.js';
import { redactSecrets } from './redact-secrets.js';
import { shapeBody } from './response-shaping.js';
import type { SandboxState } from './sandbox-state.js';
import { describeThrown, scimError, scimErrorBody } from './scim-error.js';
import { queryOf } from './query-of.js';
import { scimRoutes } from './scim-routes.js';
import { USER_SCHEMA } from './scim-store.js';

const SCIM_JSON = 'application/scim+json; charset=utf-8';

function record(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const method = req.method;
    const path = req.path;
    const query = Object.fromEntries(queryOf(req));
    state.inServer += 1;
    const concurrent = state.inServer;
    let done = false;
    const push = (status: number) => {
      if (done) return;
      done = true;
      state.inServer -= 1;
      state.bytesServed += Number(res.getHeader('content-length') ?? 0);
      // body-parser sets `{}` on bodiless requests; record only what was actually sent.
      const sent =
        req.get('transfer-encoding') !== undefined || Number(req.get('content-length')) > 0;
      const body: unknown = sent ? req.body : undefined;
      const traceparent = req.get('traceparent');
      state.requests.push({
        method,
        path,
        query,
        body: redactSecrets(body),
        status,
        concurrent,
        ...(traceparent === undefined ? {} : { traceparent }),
        ...(res.locals.answerLost === true ? { answerLost: true } : {}),
      });
    };
    res.on('finish', () => push(res.statusCode));
    // A destroyed socket (an injected reset) never finishes: recorded with status 0.
    res.on('close', () => {
      if (!res.writableFinished) push(0);
    });
    next();
  };
}

// Parse before anything else so every recorded request has its body; a malformed body is
// reported only after authentication, as a real server would.
function parseBody() {
  const parse = express.json({ type: ['application/scim+json', 'application/json'], limit: '5mb' });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) res.locals.bodyError = error;
      next();
    });
  };
}

function shapeResponses(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      // Quirk `patchNoContent`: also covers PATCH answers produced by SCIMMY.
      if (req.method === 'PATCH' && state.quirks.patchNoContent === true && res.statusCode < 300) {
        res.status(204).end();
        return res;
      }
      const notFound = state.quirks.notFoundAnswer;
      if (notFound !== undefined && res.statusCode === 404 && isObjectPath(req)) {
        return sendNotFoundAs(res, notFound);
      }
      if (isCreateAnswer(req, res) && state.quirks.createAnswer !== undefined) {
        return sendBrokenCreateAnswer(res, body, state.quirks.createAnswer);
      }
      let projection;
      try {
        projection = parseProjection(queryOf(req), USER_SCHEMA.toLowerCase());
      } catch {
        projection = undefined;
      }
      res.set('Content-Type', SCIM_JSON);
      return json(
        shapeBody(body, {
          endpoint: state.endpoint,
          quirks: state.quirks,
          store: state.store,
          projection,
        }),
      );
    };
    next();
  };
}

function isCreateAnswer(req: Request, res: Response): boolean {
  // req.path is relative to the router that answers; the URL as sent names the resource.
  const path = new URL(req.originalUrl, 'http://sandbox.invalid').pathname;
  return req.method === 'POST' && /\/Users\/?$/.test(path) && res.statusCode === 201;
}

/** A path naming one user or group by id. */
function isObjectPath(req: Request): boolean {
  const path = new URL(req.originalUrl, 'http://sandbox.invalid').pathname;
  return /\/(Users|Groups)\/[^/]+$/.test(path);
}

/** Quirk `notFoundAnswer`: the server's own 404 for an object it does not have, not SCIM 2.0's. */
function sendNotFoundAs(res: Response, shape: 'empty' | 'scim11Error' | 'html'): Response {
  if (shape === 'empty') {
    res.removeHeader('Content-Type');
    res.end();
    return res;
  }
  if (shape === 'scim11Error') {
    res.set('Content-Type', 'application/json');
    return res.send(
      JSON.stringify({ Errors: [{ description: 'Resource not found', code: '404' }] }),
    );
  }
  return res.type('text/html').send('<html><body><h1>404 Not Found</h1></body></html>');
}

/** Quirk `createAnswer`: the user was created; its answer cannot be read by a client. */
function sendBrokenCreateAnswer(
  res: Response,
  body: unknown,
  kind: 'withoutId' | 'notJson',
): Response {
  res.set('Content-Type', SCIM_JSON);
  res.removeHeader('Location');
  if (kind === 'notJson')
    return res.send('{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"');
  const user = { ...(body as Record<string, unknown>) };
  delete user.id;
  if (typeof user.meta === 'object' && user.meta !== null) {
    const meta = { ...(user.meta as Record<string, unknown>) };
    delete meta.location;
    user.meta = meta;
  }
  return res.send(JSON.stringify(user));
}

/**
 * Injected latency holds the answer back, not the request: the request is worked on as it
 * arrives, like a multi-threaded server behind a slow network. Holding requests instead
 * would make one process's CPU work run in lock-step bursts after each shared delay.
 */
function delay(state: SandboxState) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const ms = state.quirks.latencyMs ?? 0;
    if (ms > 0) {
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        setTimeout(() => end(...args), ms);
        return res;
      }) as Response['end'];
    }
    next();
  };
}

/**
 * Quirk `capacity`: a server with a few workers. A request waits for a free worker, which
 * takes `serviceMs` over it; the worker is free again when the answer is sent.
 */
function limitCapacity(state: SandboxState) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const capacity = state.quirks.capacity;
    if (capacity === undefined) {
      next();
      return;
    }
    const work = () => {
      state.working += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        state.working -= 1;
        state.capacityQueue.shift()?.();
      };
      res.once('finish', release);
      res.once('close', release);
      setTimeout(next, capacity.serviceMs);
    };
    if (state.working < capacity.concurrent) work();
    else state.capacityQueue.push(work);
  };
}

function injectFaults(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const proxied = state.proxy.match(req.path);
    if (proxied !== undefined) {
      answerAsProxy(res, proxied);
      return;
    }
    const fault = state.faults.take(req.method);
    if (fault === undefined) {
      next();
      return;
    }
    if (fault.status === 429) {
      res.set('Retry-After', fault.retryAfter);
      res.status(429).json(scimErrorBody(429, undefined, 'Too many requests'));
      return;
    }
    if (fault.status === 403) {
      res
        .status(403)
        .json(scimErrorBody(403, undefined, 'The provisioning client is disabled for this tenant'));
      return;
    }
    res
      .status(fault.status)
      .json(scimErrorBody(fault.status, undefined, 'Service temporarily failing'));
  };
}

/** A proxy's own 404: its HTML page or nothing, never a SCIM error body. */
function answerAsProxy(res: Response, body: ProxyNotFoundBody): void {
  if (body === 'empty') res.status(404).end();
  else res.status(404).type('text/html').send(PROXY_NOT_FOUND_PAGE);
}

/** Tells `onChange` about every request but a GET, when its answer is about to go out. */
function reportChanges(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const onChange = state.onChange;
    if (onChange !== undefined && req.method !== 'GET') {
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        onChange();
        return end(...args);
      }) as Response['end'];
    }
    next();
  };
}

function authenticate(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.get('authorization');
    const check = checkCredentials(state.auth, header);
    const admin =
      state.adminToken !== undefined &&
      checkCredentials({ type: 'bearer', token: state.adminToken }, header).ok;
    if (check.ok || admin) {
      next(res.locals.bodyError);
      return;
    }
    res.set('WWW-Authenticate', check.challenge);
    res.status(401).json(scimErrorBody(401, undefined, 'Authentication failed'));
  };
}

/**
 * What a path outside the SCIM endpoints answers (quirk `outsidePrefix`): a SCIM 404 by
 * default; an application's own HTML page otherwise, with 404 or, as single-page apps
 * answer every unknown path, 200.
 */
function applicationPage(
  state: SandboxState,
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  const mode = state.quirks.outsidePrefix ?? 'scimNotFound';
  if (mode === 'scimNotFound') {
    next(scimError(404, null, 'Endpoint Not Found'));
    return;
  }
  res
    .status(mode === 'html200' ? 200 : 404)
    .type('text/html; charset=utf-8')
    .send(
      '<!doctype html><html><head><title>App</title></head><body><div id="root"></div></body></html>',
    );
}

function handleErrors(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const { status, scimType, detail } = describeThrown(error);
  if (res.headersSent) return;
  res.status(status).json(scimErrorBody(status, scimType, detail));
}

/**
 * The sandbox's express application: recording, latency, injected faults (queued bursts,
 * then the seeded plan) and authentication in front of the SCIM routes, then response
 * shaping and SCIM error bodies (RFC 7644 §3.12).
 */
export function createScimApp(state: SandboxState): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(record(state));
  app.use(parseBody());
  app.use(shapeResponses(state));
  app.use(delay(state));
  app.use(reportChanges(state));
  app.use(limitCapacity(state));
  app.use(injectFaults(state));
  app.use(applyFaultPlan(state));
  app.use(authenticate(state));
  app.use(refusePasswordEchoed(state));
  if (state.baseUrlPath !== state.prefix) {
    // The status check falls back to the base URL when /ServiceProviderConfig is missing (spec).
    app.get(state.baseUrlPath === '' ? '/' : state.baseUrlPath, (req, res, next) => {
      if ((state.quirks.outsidePrefix ?? 'scimNotFound') !== 'scimNotFound') {
        applicationPage(state, req, res, next);
        return;
      }
      res.json({ service: 'SCIM 2.0 sandbox', endpoint: state.endpoint });
    });
  }
  app.use(state.prefix === '' ? '/' : state.prefix, scimRoutes(state));
  app.use((req: Request, res: Response, next: NextFunction) =>
    applicationPage(state, req, res, next),
  );
  app.use(handleErrors);
  return app;
}
