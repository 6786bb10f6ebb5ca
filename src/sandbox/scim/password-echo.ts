import type { NextFunction, Request, Response } from 'express';
import type { SandboxState } from './sandbox-state.js';

type EchoStyle = 'php' | 'python' | 'every';

/** The password a write carries: `password` on a POST/PUT body, or a PATCH operation's. */
function passwordOf(req: Request): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  if (typeof body.password === 'string') return body.password;
  const operations = body.Operations;
  if (!Array.isArray(operations)) return undefined;
  for (const op of operations as Array<Record<string, unknown>>) {
    if (typeof op.path === 'string' && op.path.toLowerCase() === 'password') {
      if (typeof op.value === 'string') return op.value;
    }
    const value = op.value as Record<string, unknown> | undefined;
    if (typeof value === 'object' && value !== null && typeof value.password === 'string') {
      return value.password;
    }
  }
  return undefined;
}

function hex(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A JSON string literal as a server's JSON library writes it (without the quotes).
 *
 * @example
 * escapeAs('Süß/x', 'php'); // 'S\u00fc\u00df\/x'
 */
export function escapeAs(text: string, style: EchoStyle): string {
  if (style === 'every') {
    return [...Array(text.length).keys()].map((i) => hex(text.charCodeAt(i))).join('');
  }
  let out = JSON.stringify(text).slice(1, -1);
  out = out.replace(/[\u0080-\uffff]/g, (c) => hex(c.charCodeAt(0)));
  if (style === 'php') out = out.replace(/\//g, '\\/');
  return out;
}

/**
 * Quirk `passwordRefusedEchoed`: a write carrying a password is refused with 400 and a body
 * (not a SCIM error: no `detail`) that quotes the password escaped, as application servers
 * written in PHP or Python do when they check password strength.
 */
export function refusePasswordEchoed(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const style = state.quirks.passwordRefusedEchoed;
    const password = style === undefined || req.method === 'GET' ? undefined : passwordOf(req);
    if (style === undefined || password === undefined) {
      next();
      return;
    }
    res
      .status(400)
      .type('application/json')
      .send(`{"message":"password ${escapeAs(password, style)} is too weak"}`);
  };
}
