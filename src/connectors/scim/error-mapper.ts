import { isProvisioningError, ProvisioningError, type ErrorCode } from '../../domain/errors';
import { oneLine } from '../http/redact';
import type { HttpResult } from '../http/transport';
import { throttledDetails, throttledFor } from '../http/throttled-for';
import { isNotFoundAnswer, type NotFoundAnswer } from './not-found-answer';

export { isScimNotFound } from './not-found-answer';

export interface ScimErrorContext {
  connector: string;
  /** What the call was about, for the message: 'account "jdoe"', 'group "Sales (g1)"'. */
  subject: string;
  /** The object a 404 means is missing. */
  notFound: 'ACCOUNT_NOT_FOUND' | 'GROUP_NOT_FOUND' | 'SCIM_REQUEST_REJECTED';
  object: string;
}

/** RFC 7644 §3.12, Table 9: the scimType of an error answer. */
export function readScimType(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const scimType = (body as Record<string, unknown>).scimType;
  return typeof scimType === 'string' ? scimType : undefined;
}

/** A mapped error whose server answered 400 with this `scimType` (RFC 7644 §3.12). */
export function hasScimType(error: unknown, scimType: string): boolean {
  return isProvisioningError(error) && error.status === 400 && error.details?.scimType === scimType;
}

/**
 * What the server said: its `detail`, else the whole answer. An answer that parses is quoted
 * from its parsed value, which the transport redacted string by string, never from the text
 * as sent: a server may spell an echoed password in escapes no search of the text foresaw.
 */
function readDetail(result: HttpResult): string {
  const body = result.body as Record<string, unknown> | undefined;
  if (typeof body?.detail === 'string') return oneLine(body.detail, 300);
  const said = typeof body === 'object' && body !== null ? JSON.stringify(body) : result.text;
  return oneLine(said, 300);
}

const BY_SCIM_TYPE: Record<string, ErrorCode> = {
  invalidFilter: 'SCIM_FILTER_UNSUPPORTED',
  tooMany: 'SCIM_FILTER_UNSUPPORTED',
  uniqueness: 'SCIM_UNIQUENESS_CONFLICT',
  mutability: 'SCIM_MUTABILITY',
  invalidSyntax: 'SCIM_INVALID_VALUE',
  invalidPath: 'SCIM_INVALID_VALUE',
  noTarget: 'SCIM_INVALID_VALUE',
  invalidValue: 'SCIM_INVALID_VALUE',
  invalidVers: 'SCIM_REQUEST_REJECTED',
  sensitive: 'SCIM_REQUEST_REJECTED',
};

/**
 * The one error mapper of connector A: keyed on HTTP status and `scimType`, never on
 * message text (STYLE: scim2-client, ConnId). The message names the connector, the call,
 * the object and what the server said, with every secret already redacted by the
 * transport.
 */
export function mapScimError(
  result: HttpResult,
  context: ScimErrorContext,
  notFoundAnswer: NotFoundAnswer = 'scimError',
): ProvisioningError {
  const scimType = readScimType(result.body);
  const code = codeFor(result, scimType, context, notFoundAnswer);
  // A 429 is returned once the call has waited as long as it may: trying again at once won't
  // do; the request waits it out on a durable timer instead (src/domain/throttle-hold.ts).
  const retryable = [500, 502, 503, 504].includes(result.status);
  const said = readDetail(result);
  const message =
    `connector "${context.connector}": ${result.describe} for ${context.subject} ` +
    `answered ${result.status}${scimType === undefined ? '' : ` ${scimType}`}` +
    (code === 'TARGET_RESPONSE_INVALID' && result.status === 404
      ? ' without a SCIM error body: not the server saying the object is missing (check the ' +
        "connector's base URL, or a gateway in front of the server; a server whose own 404 has " +
        'no body or a SCIM 1.1 one fits with the notFoundAnswer the compatibility run suggests)'
      : '') +
    (said === '' ? '' : `: ${said}`) +
    (result.status === 429 ? throttledFor(result) : '');
  const details = {
    ...(scimType === undefined ? {} : { scimType }),
    ...(result.status === 429 ? throttledDetails(result) : {}),
    // The last answer is a refusal or a 429, but an earlier attempt whose answer was lost
    // (a reset, a gateway's 503 or 504) may have been applied: only a read can tell
    // (scim-interop.md, answers lost after the write was applied).
    ...(result.maybeAppliedBefore ? { maybeApplied: true } : {}),
  };
  return new ProvisioningError(code, message, {
    retryable,
    status: result.status,
    object: context.object,
    ...(Object.keys(details).length === 0 ? {} : { details }),
  });
}

function codeFor(
  result: HttpResult,
  scimType: string | undefined,
  context: ScimErrorContext,
  notFoundAnswer: NotFoundAnswer,
): ErrorCode {
  switch (result.status) {
    case 401:
      return 'TARGET_AUTH_FAILED';
    case 403:
      return 'TARGET_FORBIDDEN';
    case 404:
      return isNotFoundAnswer(result, notFoundAnswer)
        ? context.notFound
        : 'TARGET_RESPONSE_INVALID';
    case 405:
    case 501:
      return result.describe.startsWith('PATCH')
        ? 'SCIM_PATCH_UNSUPPORTED'
        : 'SCIM_REQUEST_REJECTED';
    case 409:
      return BY_SCIM_TYPE[scimType ?? ''] ?? 'SCIM_UNIQUENESS_CONFLICT';
    case 429:
      return 'TARGET_THROTTLED';
    case 500:
    case 502:
    case 503:
    case 504:
      return 'TARGET_UNAVAILABLE';
    default:
      if (result.status >= 400 && result.status < 500) {
        return BY_SCIM_TYPE[scimType ?? ''] ?? 'SCIM_REQUEST_REJECTED';
      }
      return 'TARGET_RESPONSE_INVALID';
  }
}
