import type { AccessTokenIssuer, VerifiedToken } from './access-token-issuer.js';
import { invalidToken } from './access-token-issuer.js';
import { runBatch } from './batch-handler.js';
import type { GraphCall, GraphContext } from './graph-context.js';
import { GraphRequestError, toGraphErrorReply } from './graph-error.js';
import type { GraphReply } from './graph-error.js';
import { callFaultReply, throttledReply } from './graph-fault-replies.js';
import { routeGraphCall } from './graph-router.js';
import type { GraphSandboxRequestRecord } from './graph-sandbox-types.js';
import { parseGraphTarget } from './graph-target.js';
import type { EntraQuota } from './entra-quota.js';
import type { RequestBudget } from './request-budget.js';
import { graphTokenIssuer } from './token-authority.js';

/** What the Graph endpoint shares with the rest of the sandbox. */
export interface GraphEndpointDeps {
  context: GraphContext;
  budget: RequestBudget;
  /** Quota mode: Entra ID's per-app limits (undefined: off). */
  quota(): EntraQuota | undefined;
  issuer: AccessTokenIssuer;
  tenantId: string;
  stats: { batchSubRequests: number };
  record(entry: GraphSandboxRequestRecord): void;
}

/** One HTTP request under `/v1.0`, as read from the socket. */
export interface GraphHttpRequest {
  method: string;
  /** Path and query after `/v1.0`. */
  target: string;
  authorization: string | undefined;
  body: string;
}

/**
 * Serves one Graph HTTP request: checks the bearer token (401), then runs the call or
 * the `$batch` of calls. The batch envelope itself is not throttled; each call is, by the
 * request budget and by the fault plan (each sub-response its own 429, as Graph does).
 */
export async function handleGraphRequest(
  deps: GraphEndpointDeps,
  request: GraphHttpRequest,
): Promise<GraphReply> {
  const now = deps.context.now();
  try {
    const { appId, roles, wids } = await authenticate(deps, request.authorization);
    const body = parseJsonBody(request.body);
    const target = parseGraphTarget(request.target);
    if (target.segments.length === 1 && target.segments[0] === '$batch') {
      if (request.method !== 'POST') {
        throw new GraphRequestError(
          405,
          'Request_BadRequest',
          'The specified HTTP method is not allowed for $batch.',
        );
      }
      return runBatch(body, (sub) => {
        deps.stats.batchSubRequests += 1;
        const subTarget = parseGraphTarget(sub.url);
        const applied = executeCall(
          deps,
          { method: sub.method, ...subTarget, body: sub.body, roles, wids, appId },
          true,
        );
        const lost = lostSubAnswer(deps, sub.method, applied);
        const reply =
          lost === undefined
            ? applied
            : callFaultReply({ kind: 'server error', status: lost }, deps.context.now());
        deps.record({
          method: sub.method,
          path: `/v1.0${subTarget.rawPath}`,
          status: reply.status,
          viaBatch: true,
          ...(lost === undefined ? {} : { answerLost: true }),
        });
        return reply;
      });
    }
    return executeCall(
      deps,
      { method: request.method, ...target, body, roles, wids, appId },
      false,
    );
  } catch (error) {
    return errorReply(error, now);
  }
}

/**
 * Runs one call against the budget, the app's quota (quota mode) and the router, turning
 * errors into Graph replies. A sub-request of a batch meets its own plan faults here; a
 * direct call met them already.
 */
function executeCall(deps: GraphEndpointDeps, call: GraphCall, subRequest: boolean): GraphReply {
  const now = deps.context.now();
  const retryAfter = deps.budget.take(now);
  if (retryAfter !== undefined) return throttledReply(retryAfter, now);
  const charged = deps.quota()?.charge(call.appId, call);
  if (charged !== undefined && 'refused' in charged) return charged.refused;
  const fault = subRequest ? deps.context.faults.decideCall('sub-request') : undefined;
  if (fault !== undefined && fault.kind !== 'reset') return callFaultReply(fault, now);
  let reply: GraphReply;
  try {
    reply = routeGraphCall(deps.context, call);
  } catch (error) {
    reply = errorReply(error, now);
  }
  return charged === undefined
    ? reply
    : { ...reply, headers: { ...reply.headers, ...charged.headers } };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The fault plan's gateway status for a sub-request write that was applied (its own answer
 * lost, graph-behaviour.md: Eventual consistency), or undefined when its answer goes out.
 */
function lostSubAnswer(
  deps: GraphEndpointDeps,
  method: string,
  reply: GraphReply,
): 503 | 504 | undefined {
  if (!WRITE_METHODS.has(method) || reply.status >= 300) return undefined;
  return deps.context.faults.decideLostSubAnswer();
}

function errorReply(error: unknown, now: number): GraphReply {
  if (error instanceof GraphRequestError) return toGraphErrorReply(error, now);
  return toGraphErrorReply(
    new GraphRequestError(500, 'generalException', 'The Graph sandbox failed on this request.'),
    now,
  );
}

async function authenticate(
  deps: GraphEndpointDeps,
  authorization: string | undefined,
): Promise<VerifiedToken> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (match === null) throw invalidToken('Access token is empty.');
  const graphEndpoint = deps.context.graphEndpoint();
  return deps.issuer.verify(match[1]!, {
    audience: graphEndpoint,
    issuer: graphTokenIssuer(deps.tenantId),
    tenantId: deps.tenantId,
  });
}

function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GraphRequestError(
      400,
      'BadRequest',
      'Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.',
    );
  }
}
