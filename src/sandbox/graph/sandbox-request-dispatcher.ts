import { setTimeout as sleep } from 'node:timers/promises';
import {
  PROXY_NOT_FOUND_PAGE,
  type ProxyNotFound,
  type ProxyNotFoundBody,
} from '../faults/proxy-not-found.js';
import { handleGraphRequest } from './graph-endpoint.js';
import type { GraphEndpointDeps } from './graph-endpoint.js';
import { callFaultReply, gatewayTimeoutReply } from './graph-fault-replies.js';
import type { GraphSandboxRequestRecord } from './graph-sandbox-types.js';
import type { LoopbackReply, LoopbackRequest } from './loopback-https-server.js';
import type { TokenAuthorityConfig } from './token-authority.js';
import { serveTokenAuthority } from './token-authority-routes.js';

export interface SandboxDispatcherDeps {
  authority: TokenAuthorityConfig;
  graph: GraphEndpointDeps;
  stats: { tokenRequests: number; graphRequests: number };
  latencyMs(): number;
  /** After a request that may have changed the directory, before it is answered. */
  onChange?: () => void;
  /** Graph paths a proxy in front of the sandbox answers 404 itself (`injectProxyNotFound`). */
  proxy: ProxyNotFound;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RESET: LoopbackReply = { status: 0, resetConnection: true };

/**
 * Routes the sandbox's HTTPS requests: the token authority (token endpoint, OpenID
 * configuration, keys) and Graph under `/v1.0`, which alone gets the latency, the fault
 * plan and the request log (entries in order of arrival, status filled in when answered;
 * 0 for a destroyed socket). A write applied whose answer was lost is marked `answerLost`
 * (its status: 0 or the gateway's 504, what reached the client), and so are the sub-requests
 * of a lost `$batch` (their status: what they were answered, which never reached the client).
 */
export function createSandboxDispatcher(
  deps: SandboxDispatcherDeps,
): (request: LoopbackRequest) => Promise<LoopbackReply> {
  return async (request) => {
    const queryAt = request.url.indexOf('?');
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    if (path === '/v1.0' || path.startsWith('/v1.0/')) return serveGraph(deps, request, path);
    const authorityReply = serveTokenAuthority(deps.authority, deps.stats, request, path);
    if (authorityReply !== undefined) return authorityReply;
    return {
      status: 404,
      body: { error: { code: 'NotFound', message: `The sandbox serves nothing at ${path}.` } },
    };
  };
}

async function serveGraph(
  deps: SandboxDispatcherDeps,
  request: LoopbackRequest,
  path: string,
): Promise<LoopbackReply> {
  deps.stats.graphRequests += 1;
  const traceparent = request.headers.traceparent;
  const entry: GraphSandboxRequestRecord = {
    method: request.method,
    path,
    status: 0,
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  };
  deps.graph.record(entry);
  const proxied = deps.proxy.match(path);
  if (proxied !== undefined) {
    entry.status = 404;
    return proxyNotFoundReply(proxied);
  }
  // A $batch's sub-requests, so a lost envelope marks the sub-responses it carried as lost.
  const subEntries: GraphSandboxRequestRecord[] = [];
  const record = (sub: GraphSandboxRequestRecord) => {
    subEntries.push(sub);
    deps.graph.record(sub);
  };
  const { reply, lost } = await answerGraph({ ...deps.graph, record }, request, path);
  if (request.method !== 'GET') deps.onChange?.();
  const latency = deps.latencyMs();
  if (latency > 0) await sleep(latency);
  entry.status = reply.status;
  if (lost) for (const lostEntry of [entry, ...subEntries]) lostEntry.answerLost = true;
  return reply;
}

/** A proxy's own 404: its HTML page or nothing, never Graph's error body. */
function proxyNotFoundReply(body: ProxyNotFoundBody): LoopbackReply {
  return body === 'empty'
    ? { status: 404 }
    : { status: 404, headers: { 'Content-Type': 'text/html' }, text: PROXY_NOT_FOUND_PAGE };
}

/**
 * The fault plan around one Graph request (graph-behaviour.md: Errors and throttling,
 * Eventual consistency): a fault before anything is done (for `$batch`, only a reset or a
 * server error of the envelope; its sub-requests meet their own), or, after a write was
 * applied, its answer lost.
 */
async function answerGraph(
  deps: GraphEndpointDeps,
  request: LoopbackRequest,
  path: string,
): Promise<{ reply: LoopbackReply; lost: boolean }> {
  const faults = deps.context.faults;
  const fault = faults.decideCall(path === '/v1.0/$batch' ? 'envelope' : 'call');
  if (fault?.kind === 'reset') return { reply: RESET, lost: false };
  if (fault !== undefined) return { reply: callFaultReply(fault, deps.context.now()), lost: false };
  const reply = await handleGraphRequest(deps, {
    method: request.method,
    target: request.url.slice('/v1.0'.length),
    authorization: request.headers.authorization,
    body: request.body,
  });
  if (!WRITE_METHODS.has(request.method) || reply.status >= 300) return { reply, lost: false };
  const lost = faults.decideLostAnswer();
  if (lost === undefined) return { reply, lost: false };
  return {
    reply: lost === 'reset' ? RESET : gatewayTimeoutReply(deps.context.now()),
    lost: true,
  };
}
