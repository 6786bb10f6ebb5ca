const REDACTED = '[redacted]';

function isPasswordPath(path: unknown): boolean {
  return typeof path === 'string' && /(^|:)password$/i.test(path.trim());
}

/**
 * A deep copy of a request body with every password value replaced, so recorded requests
 * never hold a secret (DESIGN.md invariant 5): `password` attributes at any depth and the
 * `value` of PatchOp operations whose path is `password`.
 *
 * @example
 * redactSecrets({ userName: 'a', password: 'p' }); // { userName: 'a', password: '[redacted]' }
 */
export function redactSecrets(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(redactSecrets);
  if (body === null || typeof body !== 'object') return body;
  const source = body as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    result[key] = key.toLowerCase() === 'password' ? REDACTED : redactSecrets(value);
  }
  if (isPasswordPath(source.path) && 'value' in source) result.value = REDACTED;
  return result;
}
