import type { NextFunction, Request, Response } from 'express';
import type { SandboxState } from './sandbox-state.js';
import { scimErrorBody } from './scim-error.js';

const SCIM_JSON = 'application/scim+json; charset=utf-8';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Applies the seeded fault plan (scim-interop.md: 429 with Retry-After, resets and
 * 502/504 from a proxy): before the route, a reset, a server error or a 429 (nothing
 * applied); after a successful write, maybe its answer lost (the write stays applied).
 */
export function applyFaultPlan(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const fault = state.plan.decideCall('call');
    if (fault === undefined) {
      if (WRITE_METHODS.has(req.method)) loseAnswerIfPlanned(state, req, res);
      next();
      return;
    }
    if (fault.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'server error') {
      res
        .status(fault.status)
        .json(scimErrorBody(fault.status, undefined, 'Service temporarily failing'));
      return;
    }
    res.set('Retry-After', String(fault.retryAfterSeconds));
    res.status(429).json(scimErrorBody(429, undefined, 'Too many requests'));
  };
}

/**
 * Lets the route run, then intercepts its answer: a successful write may lose it, half
 * the time as a destroyed socket, half the time as a gateway's 504 with a SCIM error body.
 */
function loseAnswerIfPlanned(state: SandboxState, req: Request, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (res.statusCode >= 300) return end(...args);
    const lost = state.plan.decideLostAnswer();
    if (lost === undefined) return end(...args);
    // The request log marks it: its status is what reached the client, not what was done.
    res.locals.answerLost = true;
    if (lost === 'reset' || res.headersSent) {
      req.socket.destroy();
      return res;
    }
    const text = JSON.stringify(scimErrorBody(504, undefined, 'Gateway timeout'));
    res.statusCode = 504;
    res.setHeader('Content-Type', SCIM_JSON);
    res.setHeader('Content-Length', String(Buffer.byteLength(text)));
    return end(text, 'utf8');
  }) as Response['end'];
}
