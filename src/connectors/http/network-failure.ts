import { ProvisioningError } from '../../domain/errors';

/**
 * Network failures that happen before a request leaves: the target cannot have applied it.
 * Anything else (a reset or closed socket, a headers or body timeout, `UND_ERR_SOCKET`,
 * `ECONNRESET`, `EPIPE`, an unknown failure) may have come after the target read it.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether a network failure may have come after the request reached the target, so that the
 * target may have applied it although no answer said so.
 *
 * @example
 * mayHaveBeenSent(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })); // true
 * mayHaveBeenSent(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })); // false
 */
export function mayHaveBeenSent(error: unknown): boolean {
  const code = errorCode(error);
  return code === undefined || !NOT_SENT_CODES.has(code);
}

/**
 * The ProvisioningError for a call that met a network failure on its last attempt:
 * TARGET_TIMEOUT or TARGET_UNREACHABLE, retryable, with `details.maybeApplied` saying
 * whether any attempt of the call may have been applied by the target.
 *
 * @example
 * throw toNetworkError(error, 'hr-app', 'POST https://hr.example/scim/v2/Users', false);
 */
export function toNetworkError(
  error: unknown,
  target: string,
  describe: string,
  maybeApplied: boolean,
): ProvisioningError {
  const code = errorCode(error);
  const timedOut = isTimeout(error);
  const reason = code ?? (error instanceof Error ? error.name : 'unknown error');
  return new ProvisioningError(
    timedOut ? 'TARGET_TIMEOUT' : 'TARGET_UNREACHABLE',
    `${target}: ${describe} ${timedOut ? 'timed out' : 'failed'} (${reason})`,
    { retryable: true, object: target, details: { maybeApplied } },
  );
}

/** Whether a network failure is a timeout (connect, headers or body) rather than another failure. */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && TIMEOUT_CODES.has(code);
}

/** undici puts the system error's code on the error or on its cause. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined ? undefined : errorCode(cause);
}
