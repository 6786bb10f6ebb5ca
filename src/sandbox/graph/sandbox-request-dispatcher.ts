import { setTimeout as sleep } from 'node:timers/promises';
import { handleGraphRequest } from './graph-endpoint.js';
import type { GraphEndpointDeps } from './graph-endpoint.js';
import type { GraphReply } from './graph-error.js';
import type { LoopbackRequest } from './loopback-https-server.js';
import type { TokenAuthorityConfig } from './token-authority.js';
import { serveTokenAuthority } from './token-authority-routes.js';

export interface SandboxDispatcherDeps {
  authority: TokenAuthorityConfig;
  graph: GraphEndpointDeps;
  stats: { tokenRequests: number; graphRequests: number };
  latencyMs(): number;
}

/**
 * Routes the sandbox's HTTPS requests: the token authority (token endpoint, OpenID
 * configuration, keys) and Graph under `/v1.0`, which alone gets the latency and the
 * request log (entries in order of arrival, status filled in when answered).
 */
export function createSandboxDispatcher(
  deps: SandboxDispatcherDeps,
): (request: LoopbackRequest) => Promise<GraphReply> {
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
): Promise<GraphReply> {
  deps.stats.graphRequests += 1;
  const entry = { method: request.method, path, status: 0 };
  deps.graph.record(entry);
  const reply = await handleGraphRequest(deps.graph, {
    method: request.method,
    target: request.url.slice('/v1.0'.length),
    authorization: request.headers.authorization,
    body: request.body,
  });
  const latency = deps.latencyMs();
  if (latency > 0) await sleep(latency);
  entry.status = reply.status;
  return reply;
}
