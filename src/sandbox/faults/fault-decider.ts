import {
  DEFAULT_RETRY_AFTER_SECONDS,
  SANDBOX_FAULT_KINDS,
  checkFaultPlan,
} from './sandbox-fault-plan.js';
import type { SandboxFaultKind, SandboxFaultPlan } from './sandbox-fault-plan.js';
import { seededStream } from './seeded-stream.js';

/** What a call meets before anything is done. */
export type CallFault =
  | {
      kind: 'throttle' | 'storm';
      retryAfterSeconds: number;
      /** Graph answers this 429 without `Retry-After` (the plan's `retryAfterOmittedRate`). */
      omitRetryAfter?: boolean;
    }
  | { kind: 'server error'; status: 503 | 504 }
  | { kind: 'reset' };

/**
 * Which faults a call may meet: a whole `call`; a Graph `$batch` `envelope` (reset and
 * server errors, while throttling is per sub-request, as Graph does); a `sub-request`
 * (storm, throttle, and 503 only: a gateway's 504 would take the whole envelope).
 */
export type CallScope = 'call' | 'envelope' | 'sub-request';

/** How a lost answer reaches the client. */
export type LostAnswer = 'reset' | 504;

const EMPTY_STREAM = (): number => 0;

/**
 * Decides the faults of a {@link SandboxFaultPlan}, call by call, and counts every fault a
 * sandbox injects. Decisions come from seeded streams, one per purpose, and a call decision
 * always draws three numbers, so the n-th call's decision depends only on the seed and n.
 *
 * @example
 * const faults = new FaultDecider(() => clock);
 * faults.configure({ seed: 7, throttleRate: 0.1 });
 * const fault = faults.decideCall('call'); // e.g. { kind: 'throttle', retryAfterSeconds: 2 }
 */
export class FaultDecider {
  private plan: SandboxFaultPlan | undefined;
  private calls = EMPTY_STREAM;
  private lost = EMPTY_STREAM;
  private lostSub = EMPTY_STREAM;
  private bareThrottles = EMPTY_STREAM;
  private stormOrigin = 0;
  private tally = emptyCounts();

  constructor(private readonly now: () => number) {}

  /** Sets (or, with undefined, removes) the plan: streams restart from its seed, counts from 0. */
  configure(plan: SandboxFaultPlan | undefined): void {
    this.plan = plan === undefined ? undefined : checkFaultPlan(plan);
    this.calls = plan === undefined ? EMPTY_STREAM : seededStream(plan.seed, 'calls');
    this.lost = plan === undefined ? EMPTY_STREAM : seededStream(plan.seed, 'lost answers');
    this.lostSub =
      plan === undefined ? EMPTY_STREAM : seededStream(plan.seed, 'lost sub-request answers');
    this.bareThrottles =
      plan === undefined ? EMPTY_STREAM : seededStream(plan.seed, 'retry-after omitted');
    this.stormOrigin = this.now();
    this.tally = emptyCounts();
  }

  /** The fault this call meets before anything is done, counted; undefined for none. */
  decideCall(scope: CallScope): CallFault | undefined {
    const plan = this.plan;
    if (plan === undefined) return undefined;
    const band = this.calls();
    const variant = this.calls();
    const retryDraw = this.calls();
    const fault = this.stormAnswer(scope) ?? pickFault(plan, scope, band, variant, retryDraw);
    if (fault !== undefined) this.count(fault.kind);
    // Drawn from its own stream, only when asked for: other decisions stay as they were.
    const omitRate = plan.retryAfterOmittedRate ?? 0;
    if (fault?.kind === 'throttle' && omitRate > 0 && this.bareThrottles() < omitRate) {
      return { ...fault, omitRetryAfter: true };
    }
    return fault;
  }

  /** After a successful write: whether (and how) its answer is lost, counted. */
  decideLostAnswer(): LostAnswer | undefined {
    const rate = this.plan?.lostAnswerRate ?? 0;
    if (rate === 0) return undefined;
    const hit = this.lost() < rate;
    const form: LostAnswer = this.lost() < 0.5 ? 'reset' : 504;
    if (!hit) return undefined;
    this.count('lost answer');
    return form;
  }

  /**
   * After a `$batch` sub-request write was applied: whether its sub-response is a gateway's
   * 503 or 504 instead of its own answer, counted as a lost answer.
   */
  decideLostSubAnswer(): 503 | 504 | undefined {
    const rate = this.plan?.subRequestLostAnswerRate ?? 0;
    if (rate === 0) return undefined;
    const hit = this.lostSub() < rate;
    const status = this.lostSub() < 0.5 ? 503 : 504;
    if (!hit) return undefined;
    this.count('lost answer');
    return status;
  }

  /** Counts a fault injected outside the plan's own decisions (write lag, stale reads). */
  count(kind: SandboxFaultKind): void {
    this.tally[kind] += 1;
  }

  /** Faults injected since the sandbox started or the last `configure`. */
  counts(): Record<SandboxFaultKind, number> {
    return { ...this.tally };
  }

  private stormAnswer(scope: CallScope): CallFault | undefined {
    const storms = this.plan?.storms;
    if (storms === undefined || scope === 'envelope') return undefined;
    const elapsed = this.now() - this.stormOrigin;
    const position = ((elapsed % storms.everyMs) + storms.everyMs) % storms.everyMs;
    if (position < storms.everyMs - storms.lengthMs) return undefined;
    const remainingMs = storms.everyMs - position;
    return { kind: 'storm', retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
  }
}

function pickFault(
  plan: SandboxFaultPlan,
  scope: CallScope,
  band: number,
  variant: number,
  retryDraw: number,
): CallFault | undefined {
  // One draw falls in at most one band, so each rate is met exactly as configured.
  const reset = plan.resetRate ?? 0;
  const serverError = reset + (plan.serverErrorRate ?? 0);
  const throttle = serverError + (plan.throttleRate ?? 0);
  if (band < reset) return scope === 'sub-request' ? undefined : { kind: 'reset' };
  if (band < serverError) {
    const status = scope === 'sub-request' || variant < 0.5 ? 503 : 504;
    return { kind: 'server error', status };
  }
  if (band < throttle) {
    if (scope === 'envelope') return undefined;
    const [min, max] = plan.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    return { kind: 'throttle', retryAfterSeconds: min + Math.floor(retryDraw * (max - min + 1)) };
  }
  return undefined;
}

function emptyCounts(): Record<SandboxFaultKind, number> {
  return Object.fromEntries(SANDBOX_FAULT_KINDS.map((kind) => [kind, 0])) as Record<
    SandboxFaultKind,
    number
  >;
}
