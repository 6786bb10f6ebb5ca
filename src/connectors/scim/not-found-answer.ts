import type { HttpResult } from '../http/transport';

/** RFC 7644 §3.12: the schema of a SCIM error answer. */
const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * Whether a 404's body is the SCIM server's own "no such resource": an RFC 7644 §3.12 error
 * (its schema, or its `status` 404, which some servers send without the schema). A proxy's
 * HTML page or an empty body is neither.
 */
export function isScimNotFound(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { schemas, status } = body as Record<string, unknown>;
  return (
    (Array.isArray(schemas) && schemas.includes(SCIM_ERROR_SCHEMA)) ||
    status === '404' ||
    status === 404
  );
}

/**
 * The shapes of a 404 a SCIM server may give for an object it does not have: `scimError`,
 * RFC 7644 §3.12 (always taken); `scim11Error`, SCIM 1.1's `{"Errors": [{"code": "404"}]}`;
 * `empty`, no body at all. A connector takes the one its settings name besides `scimError`;
 * an HTML page never (a gateway's or proxy's 404 proves nothing: DESIGN invariant 11).
 */
export const NOT_FOUND_ANSWERS = ['scimError', 'scim11Error', 'empty'] as const;
export type NotFoundAnswer = (typeof NOT_FOUND_ANSWERS)[number];

function isScim11NotFound(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const errors = (body as { Errors?: unknown }).Errors;
  return (
    Array.isArray(errors) &&
    errors.some((e) => {
      const code = (e as { code?: unknown } | null)?.code;
      return code === '404' || code === 404;
    })
  );
}

/**
 * The shape of a 404's answer, when it is one a connector can be set to take; undefined for
 * anything else (an HTML page, other JSON, text).
 *
 * @example
 * notFoundAnswerOf(result); // 'empty' for a 404 without a body
 */
export function notFoundAnswerOf(result: HttpResult): NotFoundAnswer | undefined {
  if (isScimNotFound(result.body)) return 'scimError';
  if (isScim11NotFound(result.body)) return 'scim11Error';
  if (result.text.trim() === '') return 'empty';
  return undefined;
}

/**
 * Whether a 404 is the server saying the object is missing: its SCIM error, or exactly the
 * shape the connector is set to take (`notFoundAnswer`).
 */
export function isNotFoundAnswer(result: HttpResult, accepted: NotFoundAnswer): boolean {
  const shape = notFoundAnswerOf(result);
  return shape === 'scimError' || (shape !== undefined && shape === accepted);
}
