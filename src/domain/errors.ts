/**
 * The closed set of error codes. Callers branch on `code`, never on message text or
 * `instanceof` (activities lose error classes on the way back to the orchestrator).
 */
export type ErrorCode =
  // configuration and input
  | 'CONFIG_INVALID'
  | 'REQUEST_INVALID'
  | 'ATTRIBUTE_NOT_MAPPED'
  | 'REQUEST_TOO_LARGE'
  | 'PATH_SEGMENT_INVALID'
  | 'REQUEST_CONFLICT'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONNECTOR_NOT_FOUND'
  | 'OPERATION_NOT_SUPPORTED'
  | 'SECRET_NOT_FOUND'
  | 'SECRET_LOST'
  // transport, any target
  | 'TARGET_UNREACHABLE'
  | 'TARGET_TIMEOUT'
  | 'TARGET_THROTTLED'
  | 'TARGET_UNAVAILABLE'
  | 'TARGET_AUTH_FAILED'
  | 'TARGET_FORBIDDEN'
  | 'TARGET_RESPONSE_INVALID'
  | 'CONNECTOR_QUARANTINED'
  // SCIM (connector A)
  | 'SCIM_FILTER_UNSUPPORTED'
  | 'SCIM_PATCH_UNSUPPORTED'
  | 'SCIM_INVALID_VALUE'
  | 'SCIM_UNIQUENESS_CONFLICT'
  | 'SCIM_MUTABILITY'
  | 'SCIM_REQUEST_REJECTED'
  // Microsoft Graph (connector B)
  | 'GRAPH_TOKEN_FAILED'
  | 'GRAPH_CLIENT_SECRET_EXPIRED'
  | 'GRAPH_PERMISSION_MISSING'
  | 'GRAPH_ACCOUNT_PRIVILEGED'
  | 'GRAPH_REQUEST_REJECTED'
  | 'GRAPH_CONFLICT'
  // outcomes of operations
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_EXISTS'
  | 'ACCOUNT_AMBIGUOUS'
  | 'GROUP_NOT_FOUND'
  | 'GROUP_NOT_WRITABLE'
  | 'CATALOGUE_EMPTY'
  | 'ACCOUNT_STATE_NOT_CONFIRMED'
  | 'MEMBERSHIP_MISMATCH'
  | 'MEMBERSHIP_READ_UNAVAILABLE'
  | 'ACCOUNT_BUSY'
  | 'ACCOUNT_LEASE_ENDING'
  | 'ACCOUNT_RECORD_TOO_LARGE'
  | 'CATALOGUE_CURSOR_EXPIRED'
  | 'IMPORT_ALREADY_RUNNING'
  // the drift report
  | 'DRIFT_FINDING_NOT_FOUND'
  | 'DRIFT_FINDING_CLOSED'
  | 'DRIFT_FINDING_CONTENDED'
  | 'DRIFT_NOT_RESTORABLE'
  // the service itself
  | 'INTERNAL_ERROR';

export interface ProvisioningErrorOptions {
  /** Whether trying the same call again later may succeed. */
  retryable?: boolean;
  /** The HTTP status of the target's answer, when there was one. */
  status?: number;
  /** The object the error is about: a connector name, account ID, group ID or setting. */
  object?: string;
  /** Structured details safe to show to an operator (never a secret). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type of the service. Messages name the problem and the object and
 * never contain a secret: builders of messages only ever see redacted text.
 *
 * @example
 * throw new ProvisioningError('GROUP_NOT_FOUND', 'group "Sales" not found on connector hr', { object: 'Sales' });
 */
export class ProvisioningError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly object: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ProvisioningErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProvisioningError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status;
    this.object = options.object;
    this.details = options.details;
  }

  /**
   * The same error with more details (what a caller up the stack learned of it), the
   * original as its cause.
   *
   * @example
   * throw error.withDetails({ maybeApplied: true });
   */
  withDetails(more: Record<string, unknown>): ProvisioningError {
    return new ProvisioningError(this.code, this.message, {
      retryable: this.retryable,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.object === undefined ? {} : { object: this.object }),
      details: { ...this.details, ...more },
      cause: this,
    });
  }

  /** A plain, JSON-safe form for activity results, API responses and reports. */
  toJSON(): SerializedError {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.object === undefined ? {} : { object: this.object }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

export interface SerializedError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  status?: number;
  object?: string;
  details?: Record<string, unknown>;
}

export function isProvisioningError(value: unknown): value is ProvisioningError {
  return value instanceof ProvisioningError;
}
