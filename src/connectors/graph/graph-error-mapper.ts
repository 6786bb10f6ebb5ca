import { ProvisioningError, type ErrorCode } from '../../domain/errors';
import { oneLine } from '../http/redact';
import { throttledDetails, throttledFor } from '../http/throttled-for';
import { isRecord } from './graph-objects';
import { permissionsToGrant, type GraphTask } from './graph-permissions';

/** What the mapper needs of an answer: a whole HTTP answer or one `$batch` sub-response. */
export interface GraphAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Method and URL, for the message. */
  describe: string;
  /** How long the call waited for the target's throttling, and how many 429s it met. */
  throttledWaitMs?: number;
  throttledAnswers?: number;
  /** The throttle wait the call was allowed (maxThrottleWaitSeconds), for the message. */
  maxThrottleWaitMs?: number;
  /** The wait the answer's `Retry-After` asks for, as the transport read it. */
  retryAfterMs?: number;
  /** An earlier attempt of the call may have been applied (a 503/504 or a reset after sending). */
  maybeAppliedBefore?: boolean;
}

export interface GraphErrorContext {
  connector: string;
  /** The spec task of the call: names the permission a 403 is missing. */
  task: GraphTask;
  /** What the call was about, for the message: 'account "jdoe@contoso.example"'. */
  subject: string;
  object: string;
  /** The code a 404 means. */
  notFound: 'ACCOUNT_NOT_FOUND' | 'GROUP_NOT_FOUND' | 'GRAPH_REQUEST_REJECTED';
  /** Why a 403 `Authorization_RequestDenied` came, when the service read it out (see ForbiddenCause). */
  forbidden?: ForbiddenCause;
}

/**
 * Graph answers 403 `Authorization_RequestDenied` alike for a missing permission and for an
 * account only a privileged role may change (Graph's user update and delete pages: in
 * app-only calls User.ReadWrite.All is not enough for a user holding an administrator
 * role). The service tells them apart by what it can read, never by the message:
 * - `privileged-account`: the account's memberOf shows these directory roles;
 * - `permission-held`: the account holds no directory role and the token's roles claim
 *   carries the permission (a hint), so something else is refused;
 * - `not-told`: what would tell could not be read (`why`).
 * Without a cause, a 403 `Authorization_RequestDenied` is the missing permission.
 */
export type ForbiddenCause =
  | { kind: 'privileged-account'; roles: string[] }
  | { kind: 'permission-held'; by: string }
  | { kind: 'not-told'; why: string };

/** graph-behaviour.md: `{ error: { code, message, details?, innerError } }`. */
export interface GraphErrorBody {
  code?: string;
  message?: string;
  detailCodes: string[];
}

/** Reads Graph's error body; absent parts stay undefined. */
export function readGraphError(body: unknown): GraphErrorBody {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const details = Array.isArray(error?.details) ? error.details : [];
  return {
    code: typeof error?.code === 'string' ? error.code : undefined,
    message: typeof error?.message === 'string' ? oneLine(error.message, 300) : undefined,
    detailCodes: details
      .map((detail) =>
        isRecord(detail) && typeof detail.code === 'string' ? detail.code : undefined,
      )
      .filter((code): code is string => code !== undefined),
  };
}

/** The `error.code`s of Graph's own "no such object" (graph-behaviour.md: Users, Errors). */
const GRAPH_NOT_FOUND_CODES = new Set(['Request_ResourceNotFound', 'ResourceNotFound']);

/**
 * Whether a 404 is Graph's own word that the object is missing: its error body with a
 * not-found code. A 404 without one came from a proxy, a gateway or a wrong `graphEndpoint`
 * and proves nothing missing (DESIGN invariant 11).
 */
export function isGraphNotFound(result: { status: number; body: unknown }): boolean {
  return result.status === 404 && GRAPH_NOT_FOUND_CODES.has(readGraphError(result.body).code ?? '');
}

/**
 * The one error mapper of connector B: keyed on HTTP status and Graph's `error.code`,
 * never on message text (graph-behaviour.md). Graph's own message is quoted (it comes
 * through the transport's redaction), so the operator sees what Graph said.
 *
 * @example
 * mapGraphError(answer, { connector: 'entra', task: 'writeMemberships', subject: 'group "Sales"', object: 'g1', notFound: 'GROUP_NOT_FOUND' });
 */
export function mapGraphError(answer: GraphAnswer, context: GraphErrorContext): ProvisioningError {
  const error = readGraphError(answer.body);
  const permission = permissionsToGrant(context.task);
  const { code, hint } = classify(answer.status, error, context, permission);
  const said = error.message === undefined ? '' : `: ${error.message}`;
  const message =
    `connector "${context.connector}": ${answer.describe} for ${context.subject} answered ` +
    `${answer.status}${error.code === undefined ? '' : ` ${error.code}`}${said}${hint}` +
    (answer.status === 429 ? throttledFor(answer) : '');
  const retryAfter = answer.headers['retry-after'];
  return new ProvisioningError(code, message, {
    // A 429 is returned once the call has waited as long as it may: trying again at once won't
    // do; the request waits it out on a durable timer instead (src/domain/throttle-hold.ts).
    retryable: [500, 502, 503, 504].includes(answer.status),
    status: answer.status,
    object: context.object,
    details: {
      ...(error.code === undefined ? {} : { graphCode: error.code }),
      ...(error.detailCodes.length === 0 ? {} : { graphDetailCodes: error.detailCodes }),
      ...(code === 'GRAPH_PERMISSION_MISSING' ? { permission } : {}),
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(answer.status === 429 ? throttledDetails(answer) : {}),
      // The last answer is a refusal or a 429, but an earlier attempt whose answer was lost
      // may have been applied: only a read can tell (graph-behaviour.md, lost answers).
      ...(answer.maybeAppliedBefore === true ? { maybeApplied: true } : {}),
    },
  });
}

function classify(
  status: number,
  error: GraphErrorBody,
  context: GraphErrorContext,
  permission: string,
): { code: ErrorCode; hint: string } {
  switch (status) {
    case 400:
      return { code: 'GRAPH_REQUEST_REJECTED', hint: '' };
    case 401:
      return {
        code: 'TARGET_AUTH_FAILED',
        hint: ' (the access token was refused: check tenant, app registration and Graph endpoint)',
      };
    case 403:
      return error.code === 'Authorization_RequestDenied'
        ? classifyDenied(context.forbidden, permission)
        : {
            code: 'TARGET_FORBIDDEN',
            hint: ` (this call needs the application permission ${permission})`,
          };
    case 404:
      return error.code !== undefined && GRAPH_NOT_FOUND_CODES.has(error.code)
        ? { code: context.notFound, hint: '' }
        : {
            code: 'TARGET_RESPONSE_INVALID',
            hint:
              " without Graph's not-found error: not Graph saying the object is missing (check " +
              "the connector's graphEndpoint, or a proxy in front of Graph)",
          };
    case 409:
      return { code: 'GRAPH_CONFLICT', hint: '' };
    case 429:
      return { code: 'TARGET_THROTTLED', hint: '' };
    case 500:
    case 502:
    case 503:
    case 504:
      return { code: 'TARGET_UNAVAILABLE', hint: '' };
    default:
      return {
        code: status >= 400 && status < 500 ? 'GRAPH_REQUEST_REJECTED' : 'TARGET_RESPONSE_INVALID',
        hint: '',
      };
  }
}

function classifyDenied(
  cause: ForbiddenCause | undefined,
  permission: string,
): { code: ErrorCode; hint: string } {
  switch (cause?.kind) {
    case undefined:
      return {
        code: 'GRAPH_PERMISSION_MISSING',
        hint: ` (the app needs the application permission ${permission}, with admin consent)`,
      };
    case 'privileged-account':
      return {
        code: 'GRAPH_ACCOUNT_PRIVILEGED',
        hint:
          ` (the account holds the directory role ${cause.roles.join(', ')}: Graph lets an app ` +
          `change or delete such an account only when the app itself holds a privileged ` +
          `Microsoft Entra role such as Privileged Authentication Administrator; ` +
          `${permission} is not enough)`,
      };
    case 'permission-held':
      return {
        code: 'TARGET_FORBIDDEN',
        hint:
          ` (the token's roles claim carries ${cause.by} and the account holds no directory ` +
          `role, so Graph refused for another reason: some changes, such as a password, ` +
          `also need the app to hold a Microsoft Entra role such as User Administrator)`,
      };
    case 'not-told':
      return {
        code: 'TARGET_FORBIDDEN',
        hint:
          ` (either the app lacks the application permission ${permission}, or the account ` +
          `holds a directory role that only a privileged Microsoft Entra role may change; ` +
          `could not tell which: ${cause.why})`,
      };
  }
}
