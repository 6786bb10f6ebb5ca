import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpRequest, type HttpResponseInit } from '@azure/functions';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { MAX_BODY_BYTES } from '../../api/http-problem';
import { malformedPathSegment, malformedSegmentAnswer } from '../../api/path-segments';
import type { ApiRoute } from '../../api/routes';
import type { Logger } from '../../domain/logger';
import { serviceTracer } from '../../telemetry/tracing';
import { createInvocationContext } from './invocation-context';

interface CompiledRoute {
  route: ApiRoute;
  pattern: RegExp;
  names: string[];
}

/**
 * The local host's HTTP front: the same handlers as in Azure under `/api/...`, behind an
 * API key like a function key (header `x-functions-key` or query parameter `code`).
 * Bodies over the API's limit are refused before they are read in full.
 */
export function createApiServer(
  routes: readonly ApiRoute[],
  options: { apiKey: string; logger: Logger },
): Server {
  const compiled = routes.map(compile);
  return createServer((req, res) => {
    handle(req, res, compiled, options).catch((error: unknown) => {
      options.logger.error(
        `local host: unhandled failure: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!res.headersSent)
        send(res, {
          status: 500,
          jsonBody: { error: { code: 'INTERNAL_ERROR', message: 'internal error' } },
        });
      else res.destroy();
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly CompiledRoute[],
  options: { apiKey: string; logger: Logger },
): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  const path = url.pathname.startsWith('/api/') ? url.pathname.slice('/api/'.length) : undefined;
  const candidates = path === undefined ? [] : routes.filter((r) => r.pattern.test(path));
  const match = candidates.find((r) => r.route.method === req.method);
  // As the Functions host: a key is checked where the route's level asks for one.
  const key = headerValue(req, 'x-functions-key') ?? url.searchParams.get('code') ?? '';
  if ((match ?? candidates[0])?.route.authLevel !== 'anonymous' && !sameKey(key, options.apiKey)) {
    send(res, {
      status: 401,
      jsonBody: {
        error: {
          code: 'UNAUTHORIZED',
          message: 'missing or wrong API key: send header x-functions-key',
        },
      },
    });
    return;
  }
  const badSegment = malformedPathSegment(url.pathname);
  if (badSegment !== undefined) {
    // Route parameters are decoded below: a segment that does not decode is answered here.
    send(res, malformedSegmentAnswer(badSegment));
    return;
  }
  if (path === undefined || candidates.length === 0) {
    send(res, {
      status: 404,
      jsonBody: { error: { code: 'NOT_FOUND', message: `no route ${url.pathname}` } },
    });
    return;
  }
  if (match === undefined) {
    send(res, {
      status: 405,
      headers: { allow: candidates.map((r) => r.route.method).join(', ') },
      jsonBody: {
        error: {
          code: 'NOT_FOUND',
          message: `method ${req.method ?? ''} not allowed on ${url.pathname}`,
        },
      },
    });
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    send(res, {
      status: 413,
      jsonBody: {
        error: {
          code: 'REQUEST_TOO_LARGE',
          message: `the request body is larger than ${MAX_BODY_BYTES} bytes`,
        },
      },
    });
    return;
  }
  const values = match.pattern.exec(path ?? '')?.slice(1) ?? [];
  const params = Object.fromEntries(
    match.names.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]),
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  const request = new HttpRequest({
    method: req.method ?? 'GET',
    url: url.toString(),
    headers,
    params,
    body: { string: body },
  });
  const context = createInvocationContext(match.route.name, options.logger);
  // As the Functions host: each call is a server span, in the caller's trace when its
  // W3C traceparent says so.
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const answer = await serviceTracer().startActiveSpan(
    `${req.method ?? 'GET'} /api/${match.route.route}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method ?? 'GET', 'http.route': match.route.route },
    },
    parent,
    async (span) => {
      try {
        const response = await match.route.handler(request, context);
        span.setAttribute('http.response.status_code', response.status ?? 200);
        if ((response.status ?? 200) >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } finally {
        span.end();
      }
    },
  );
  send(res, answer);
}

function compile(route: ApiRoute): CompiledRoute {
  const names: string[] = [];
  let source = '';
  for (const [index, segment] of route.route.split('/').entries()) {
    const separator = index === 0 ? '' : '/';
    // `{*name}`: the rest of the path, possibly empty, as Azure Functions' catch-all.
    const rest = /^\{\*(\w+)\}$/.exec(segment);
    const param = /^\{(\w+)\}$/.exec(segment);
    if (rest !== null) {
      names.push(rest[1] as string);
      source += `(?:${separator}(.*))?`;
    } else if (param !== null) {
      names.push(param[1] as string);
      source += `${separator}([^/]+)`;
    } else {
      source += separator + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return { route, pattern: new RegExp(`^${source}$`), names };
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, response: HttpResponseInit): void {
  const headers = new Headers(response.headers);
  let body: string | Uint8Array | undefined;
  if (response.jsonBody !== undefined) {
    body = JSON.stringify(response.jsonBody);
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/json; charset=utf-8');
  } else if (typeof response.body === 'string' || response.body instanceof Uint8Array) {
    body = response.body;
  }
  res.writeHead(response.status ?? 200, Object.fromEntries(headers.entries()));
  res.end(body);
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
