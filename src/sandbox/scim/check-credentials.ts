import { createHash, timingSafeEqual } from 'node:crypto';
import type { ScimSandboxAuth } from './types.js';

export type CredentialCheck = { ok: true } | { ok: false; challenge: string };

function same(a: string, b: string): boolean {
  // Hashing first gives equal lengths, so the comparison time says nothing about the secret.
  return timingSafeEqual(
    createHash('sha256').update(a).digest(),
    createHash('sha256').update(b).digest(),
  );
}

/**
 * Checks an `Authorization` header against the sandbox's auth setting (spec: Authentication,
 * connector A: Bearer, Basic or none). A failure carries the `WWW-Authenticate` challenge
 * (RFC 6750 §3, RFC 7617 §2); the header itself is never echoed.
 *
 * @example
 * checkCredentials({ type: 'bearer', token: 't' }, 'Bearer t'); // { ok: true }
 */
export function checkCredentials(
  auth: ScimSandboxAuth,
  header: string | undefined,
): CredentialCheck {
  if (auth.type === 'none') return { ok: true };
  const [scheme = '', ...rest] = (header ?? '').trim().split(/\s+/);
  const credential = rest.join(' ');
  if (auth.type === 'bearer') {
    const valid = scheme.toLowerCase() === 'bearer' && same(credential, auth.token);
    return valid ? { ok: true } : { ok: false, challenge: 'Bearer realm="scim-sandbox"' };
  }
  const expected = `${auth.username}:${auth.password}`;
  const presented =
    scheme.toLowerCase() === 'basic' ? Buffer.from(credential, 'base64').toString('utf8') : '';
  return same(presented, expected) && scheme.toLowerCase() === 'basic'
    ? { ok: true }
    : { ok: false, challenge: 'Basic realm="scim-sandbox", charset="UTF-8"' };
}
