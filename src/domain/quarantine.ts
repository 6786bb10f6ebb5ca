import type { ErrorCode, SerializedError } from './errors';

/** A connector's quarantine settings (each connector's `quarantine`, with these defaults). */
export interface QuarantineSettings {
  /** False: failures never quarantine the connector; requests fail as they meet them. */
  enabled: boolean;
  /** 5xx answers and connection failures in a row (each after the transport's retries) that quarantine. */
  failureThreshold: number;
  /** ...counted only while each comes within this many seconds of the previous one. */
  failureWindowSeconds: number;
  /** The first probe's delay after the connector is quarantined; each later one doubles... */
  firstProbeSeconds: number;
  /** ...up to this. */
  maxProbeSeconds: number;
  /** A request held longer than this fails with CONNECTOR_QUARANTINED. */
  maxHoldHours: number;
}

export const QUARANTINE_DEFAULTS: QuarantineSettings = {
  enabled: true,
  failureThreshold: 5,
  failureWindowSeconds: 120,
  firstProbeSeconds: 30,
  maxProbeSeconds: 3600,
  maxHoldHours: 24,
};

/**
 * How a target failed, when the failure will fail every request (issue 14, Quarantine):
 * `credentials` refused (a 401, a token refused, the connector's secret missing),
 * `authority` (the token authority unreachable or failing), `outage` (5xx after the
 * transport's retries, no connection, no answer in time). Anything else is the request's.
 */
export type TargetFailure = 'credentials' | 'authority' | 'outage';

/**
 * The kind of a connector call's failure, or undefined when it is about this request only
 * (a 404, a 400, a refused group, throttling, which slows requests but never stops them).
 * An expired client secret is refused credentials: every request would meet it until an
 * operator stores a new one.
 *
 * @example
 * targetFailureOf({ code: 'TARGET_AUTH_FAILED', retryable: false }); // 'credentials'
 */
export function targetFailureOf(error: {
  code: ErrorCode;
  retryable: boolean;
}): TargetFailure | undefined {
  switch (error.code) {
    case 'TARGET_AUTH_FAILED':
    case 'SECRET_NOT_FOUND':
    case 'GRAPH_CLIENT_SECRET_EXPIRED':
      return 'credentials';
    case 'GRAPH_TOKEN_FAILED':
      return error.retryable ? 'authority' : 'credentials';
    case 'TARGET_UNAVAILABLE':
    case 'TARGET_UNREACHABLE':
    case 'TARGET_TIMEOUT':
      return 'outage';
    default:
      return undefined;
  }
}

/**
 * What a connector call's error carries when it failed in a way that fails every request:
 * the kind, and whether it quarantines the connector (this worker's count reached the
 * threshold). Set by the connector's observer; read by the request's orchestration.
 */
export interface TargetFailureMark {
  kind: TargetFailure;
  quarantines: boolean;
}

/** The mark a connector call's error carries, if any. */
export function targetFailureMarkOf(
  error: SerializedError | undefined,
): TargetFailureMark | undefined {
  const mark = error?.details?.targetFailure as Partial<TargetFailureMark> | undefined;
  if (mark === undefined || typeof mark.kind !== 'string') return undefined;
  return { kind: mark.kind, quarantines: mark.quarantines === true };
}

/** A connector's quarantine as stored and shown (times ISO). */
export interface QuarantineState {
  connector: string;
  quarantined: boolean;
  /** Counts the quarantines of this connector: a probe of an earlier one never ends a later one. */
  epoch: number;
  /** When the current (or last) quarantine began. */
  since: string;
  /** The failure that quarantined it: code and message (redacted: no secret). */
  reason: { code: ErrorCode; message: string };
  /** The latest failure seen since: a probe's, or the reason itself. */
  lastError: { code: ErrorCode; message: string; at: string };
  /** Probes made in this quarantine. */
  probes: number;
  lastProbeAt?: string;
  /** When the next probe is due (while quarantined). */
  nextProbeAt: string;
  /** How the last quarantine ended. */
  releasedAt?: string;
  releasedBy?: 'probe' | 'operator';
  /**
   * Who released it, where an operator did: the caller as the API knew it (a signed-in
   * principal's name, or which key: "function key", "local API key"), or the command line.
   * Never a credential.
   */
  releasedByName?: string;
}

/**
 * Who ends a quarantine: its probe, or an operator, named as the API (or the command line)
 * knew the caller; an operator nothing named (`'operator'`, or no name) is recorded as
 * "operator" alone.
 */
export type QuarantineRelease = 'probe' | 'operator' | { operator: string | undefined };

/** The delay before probe number `probe` (0: the first): doubling from the first, up to the most. */
export function probeDelayMs(probe: number, settings: QuarantineSettings): number {
  const first = settings.firstProbeSeconds * 1000;
  return Math.min(settings.maxProbeSeconds * 1000, first * 2 ** Math.min(probe, 30));
}

/** A held request checks again this long after the probe was due: the probe has answered by then. */
const AFTER_PROBE_MS = 5_000;
/** The longest a held request waits between two checks. */
const MOST_BETWEEN_CHECKS_MS = 10 * 60_000;

/**
 * How long a held request waits before it checks the quarantine again (`poll`: checks so
 * far): until just after the next probe (the probe may have released the connector), at
 * least 5 s, and at most 30 s growing by a quarter with each check up to 10 minutes (an
 * operator's release is seen within a minute by a request held a few minutes, within ten
 * by one held for hours, and a day's hold stays a short history to replay).
 *
 * @example
 * holdCheckDelayMs(0, Date.parse('2026-11-23T08:00:30Z'), Date.parse('2026-11-23T08:00:00Z')); // 30_000
 */
export function holdCheckDelayMs(poll: number, nextProbeAtMs: number, nowMs: number): number {
  const most = Math.min(MOST_BETWEEN_CHECKS_MS, 30_000 * 1.25 ** Math.min(poll, 40));
  return Math.round(
    Math.max(AFTER_PROBE_MS, Math.min(most, nextProbeAtMs + AFTER_PROBE_MS - nowMs)),
  );
}

/** Cuts an operator-facing text to a length a table row and a status answer carry well. */
export function clipText(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}

/**
 * The error of a request held longer than its connector's `maxHoldHours`: nothing more of
 * it runs; the message says since when, why, and what the operator can do.
 */
export function quarantineExpired(
  state: Pick<QuarantineState, 'connector' | 'since' | 'reason'>,
  heldMs: number,
  maxHoldHours: number,
): SerializedError {
  const hours = Math.round((heldMs / 3_600_000) * 10) / 10;
  return {
    code: 'CONNECTOR_QUARANTINED',
    message:
      `connector "${state.connector}" is quarantined since ${state.since} (${state.reason.code}: ` +
      `${state.reason.message}); the request was held ${hours} h, past the limit of ` +
      `${maxHoldHours} h (quarantine.maxHoldHours), and ends here: the steps not run were not ` +
      `written. Fix the target or release the connector ` +
      `(POST /api/connectors/${encodeURIComponent(state.connector)}/release), then send it again`,
    retryable: true,
    object: state.connector,
    details: { since: state.since, reason: state.reason, heldMs },
  };
}

/**
 * A duration as an operator reads it.
 *
 * @example
 * describeDuration(380_000); // '6 min 20 s'
 */
export function describeDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60)
    return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
