import { ProvisioningError } from '../../domain/errors.js';

/**
 * Faults a sandbox injects into the calls it serves, drawn from a seeded PRNG
 * (graph-behaviour.md: "Errors and throttling", "Eventual consistency"; scim-interop.md:
 * 429, lost answers). Every rate is a per-call probability; rates left out are 0.
 */
export interface SandboxFaultPlan {
  /** Same seed and same sequence of calls: same sequence of decisions. */
  seed: number;
  /** Per call: 429 with `Retry-After` before doing anything (nothing applied). */
  throttleRate?: number;
  /** `Retry-After` drawn in this range of whole seconds on the sandbox clock (default `[1, 3]`). */
  retryAfterSeconds?: [number, number];
  /**
   * Graph: per 429 of `throttleRate`, the answer carries no `Retry-After` (graph-behaviour.md:
   * "No header → exponential backoff with jitter"). The SCIM sandbox always sends one.
   */
  retryAfterOmittedRate?: number;
  /** Per call: 503 or 504 before doing anything (nothing applied). */
  serverErrorRate?: number;
  /** Per call: the socket is destroyed before doing anything (nothing applied). */
  resetRate?: number;
  /**
   * Per successful write (POST, PUT, PATCH, DELETE answered < 300): the write IS applied,
   * then its answer is lost: half the time the socket is destroyed, half the time 504.
   */
  lostAnswerRate?: number;
  /**
   * Per Graph `$batch` sub-request write that succeeded: the write IS applied, then its own
   * sub-response says 503 or 504, half the time each (graph-behaviour.md: "504/503 from a
   * gateway after the directory committed the change"; each sub-response has its own status).
   */
  subRequestLostAnswerRate?: number;
  /**
   * On the sandbox clock: during the last `lengthMs` of every `everyMs` (counted from
   * `setFaults`), every call answers 429 with `Retry-After` = the storm's remaining time.
   */
  storms?: { everyMs: number; lengthMs: number };
}

/** The faults a sandbox counts (see `faultCounts()`). */
export type SandboxFaultKind =
  'throttle' | 'storm' | 'server error' | 'reset' | 'lost answer' | 'new object 404' | 'stale read';

export const SANDBOX_FAULT_KINDS: readonly SandboxFaultKind[] = [
  'throttle',
  'storm',
  'server error',
  'reset',
  'lost answer',
  'new object 404',
  'stale read',
];

export const DEFAULT_RETRY_AFTER_SECONDS: readonly [number, number] = [1, 3];

function invalid(message: string): ProvisioningError {
  return new ProvisioningError('REQUEST_INVALID', `fault plan: ${message}`);
}

function checkRate(name: string, rate: number | undefined): number {
  const value = rate ?? 0;
  if (!Number.isFinite(value) || value < 0 || value > 1) throw invalid(`${name} must be in [0, 1]`);
  return value;
}

/**
 * Throws `REQUEST_INVALID` for a plan the decider cannot honour: rates outside [0, 1], the
 * per-call rates summing above 1 (each call meets at most one of them), a Retry-After
 * range that is not whole seconds `0 <= min <= max`, or storms longer than their period.
 *
 * @example
 * checkFaultPlan({ seed: 7, throttleRate: 0.05, storms: { everyMs: 60_000, lengthMs: 2_000 } });
 */
export function checkFaultPlan(plan: SandboxFaultPlan): SandboxFaultPlan {
  if (!Number.isInteger(plan.seed)) throw invalid('seed must be an integer');
  const perCall =
    checkRate('throttleRate', plan.throttleRate) +
    checkRate('serverErrorRate', plan.serverErrorRate) +
    checkRate('resetRate', plan.resetRate);
  if (perCall > 1) throw invalid('throttleRate + serverErrorRate + resetRate must not exceed 1');
  checkRate('lostAnswerRate', plan.lostAnswerRate);
  checkRate('subRequestLostAnswerRate', plan.subRequestLostAnswerRate);
  checkRate('retryAfterOmittedRate', plan.retryAfterOmittedRate);
  const [min, max] = plan.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw invalid('retryAfterSeconds must be whole seconds [min, max] with 0 <= min <= max');
  }
  const storms = plan.storms;
  if (
    storms !== undefined &&
    !(storms.everyMs > 0 && storms.lengthMs > 0 && storms.lengthMs <= storms.everyMs)
  ) {
    throw invalid('storms need 0 < lengthMs <= everyMs');
  }
  return { ...plan, ...(storms === undefined ? {} : { storms: { ...storms } }) };
}
