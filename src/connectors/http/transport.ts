import { Pool } from 'undici';
import { isProvisioningError } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import { backoffDelay, type BackoffPolicy } from './backoff';
import type { CallObserver } from './call-observer';
import { isTimeout, mayHaveBeenSent, toNetworkError } from './network-failure';
import {
  failedWait,
  isThrottled,
  startProgress,
  throttledWait,
  throttledWaitOf,
  type CallProgress,
} from './retry-policy';
import { describeUrl, redactSecrets, redactValue } from './redact';
import { parseRetryAfter } from './retry-after';
import { refuseAfterSendDeadline } from './send-deadline';
import { requestText } from './text-response';
import type { QuotaBudget, QuotaCost } from './quota-budget';
import { ThrottleGate } from './throttle-gate';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface HttpCall {
  method: HttpMethod;
  url: string | URL;
  headers?: Record<string, string>;
  /** A JSON body: serialised with the `contentType` given (default application/json). */
  json?: unknown;
  /** A pre-encoded body (form posts). */
  rawBody?: string;
  contentType?: string;
  /** False for calls that must not be repeated on a network error. Default true. */
  retry?: boolean;
  /**
   * Whether an answer that is no 429 still tells of throttling (a `$batch` whose
   * sub-responses say 429): the gate then counts the attempt as throttled.
   */
  throttledInside?: (result: HttpResult) => boolean;
  /** What each attempt spends of the target's quota (`TransportOptions.budget`). */
  cost?: QuotaCost;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the answer is JSON (any `*json` type, or a body that parses), else undefined. */
  body: unknown;
  /**
   * An earlier attempt of this call may have been applied by the target although no answer
   * said so (it ended in a 502/503/504 or a network error after the request may have been
   * sent): an "already in place" now may be this call's own doing.
   */
  maybeAppliedBefore: boolean;
  /** How long this call waited because the target throttled (its own 429s and the gate's pauses). */
  throttledWaitMs: number;
  /** How many 429 answers this call met. */
  throttledAnswers: number;
  /** The throttle wait this call was allowed (`TransportOptions.maxThrottleWaitMs`): for messages. */
  maxThrottleWaitMs?: number;
  /** The wait the answer's `Retry-After` asks for, read once, on the transport's clock when it came. */
  retryAfterMs?: number;
  /** The raw text, redacted of every known secret. */
  text: string;
  /** The call as it may appear in a message: method and URL without credentials. */
  describe: string;
  attempts: number;
}

/** One request and its answer as an operator may see them: secrets redacted, bodies cut short. */
export interface HttpExchange {
  request: string;
  requestBody?: string;
  status: number;
  answer: string;
}

export interface TransportStats {
  attempts: number;
  retries: number;
  throttled: number;
  /** Milliseconds calls waited because the target throttled. */
  throttledWaitMs: number;
}

export interface TransportOptions {
  /** Who is called, for messages: the connector name. */
  target: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * The per-target concurrency limit (DESIGN invariant 8): attempts in flight at once, the
   * gate's ceiling. The pool per origin keeps up to twice as many connections, the rest idle.
   */
  concurrency: number;
  backoff?: BackoffPolicy;
  /** A Retry-After longer than this is not waited for in-process: the throttled answer is returned. */
  maxRetryAfterMs?: number;
  /**
   * How long one call may wait in all for a throttling target (429s, Retry-After pauses)
   * before its 429 is returned (the mappers make it TARGET_THROTTLED). Default 120 s.
   */
  maxThrottleWaitMs?: number;
  /** Headers that authenticate a call, asked for on every attempt (tokens may be refreshed). */
  authorize?: () => Promise<Record<string, string>>;
  /** Secret values to strip from anything the target says back. */
  secrets?: () => readonly string[];
  /** An extra CA certificate (PEM) to trust, for sandboxes with self-signed certificates. */
  ca?: string;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  logger?: Logger;
  /** Sees every attempt's request and answer, redacted: evidence for reports. */
  observer?: (exchange: HttpExchange) => void;
  /**
   * The target's quota (Graph's limits per app and tenant): every attempt waits for its
   * `cost`, and every answer corrects the buckets.
   */
  budget?: QuotaBudget;
  /** Telemetry: sees each attempt's method, URL and end, and each call's throttle wait. */
  telemetry?: CallObserver;
}

/**
 * The transport options every connector's settings give (DESIGN invariant 8): its name,
 * timeout, retries, throttle wait and concurrency.
 */
export function transportOptionsOf(settings: {
  name: string;
  timeoutMs: number;
  maxRetries: number;
  maxThrottleWaitSeconds: number;
  concurrency: number;
}): Pick<
  TransportOptions,
  'target' | 'timeoutMs' | 'maxRetries' | 'maxThrottleWaitMs' | 'concurrency'
> {
  return {
    target: settings.name,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    maxThrottleWaitMs: settings.maxThrottleWaitSeconds * 1000,
    concurrency: settings.concurrency,
  };
}

/**
 * Connections a pool may open per slot of the gate. Only `concurrency` of them carry an
 * attempt at any time; the others are ready when a slot frees (see `pool`).
 */
const CONNECTIONS_PER_SLOT = 2;

const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 200, maxDelayMs: 10_000 };

/**
 * The shared outbound transport (DESIGN: src/connectors/http): a keep-alive pool per origin,
 * one throttle gate per target that every attempt passes and that keeps the attempts in
 * flight to the concurrency limit (DESIGN invariant 8), a timeout per call, retries of 429
 * (and 503 with Retry-After) within a throttle wait budget, bounded retries with exponential
 * backoff and jitter for 503, 504 and network errors, `Retry-After` honoured. Answers of any
 * other status are returned for the connector's error mapper.
 */
export class HttpTransport {
  readonly stats: TransportStats = { attempts: 0, retries: 0, throttled: 0, throttledWaitMs: 0 };
  /** The target's throttle gate: every attempt of every call of this worker passes it. */
  readonly gate: ThrottleGate;
  private readonly pools = new Map<string, Pool>();
  private readonly options: Required<
    Omit<
      TransportOptions,
      'authorize' | 'secrets' | 'ca' | 'logger' | 'observer' | 'budget' | 'telemetry'
    >
  > &
    Pick<TransportOptions, 'authorize' | 'secrets' | 'ca' | 'observer' | 'budget' | 'telemetry'> & {
      logger: Logger;
    };

  constructor(options: TransportOptions) {
    this.options = {
      backoff: DEFAULT_BACKOFF,
      maxRetryAfterMs: 120_000,
      maxThrottleWaitMs: 120_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      now: Date.now,
      ...options,
      logger: options.logger ?? silentLogger,
    };
    this.gate = new ThrottleGate({
      maxConcurrency: this.options.concurrency,
      now: this.options.now,
      sleep: this.options.sleep,
      ...(this.options.budget === undefined ? {} : { budget: this.options.budget }),
    });
  }

  /**
   * Sends one call through the target's gate, retrying what may be retried: 429 (and 503
   * with Retry-After) for as long as the call's throttle wait stays under
   * `maxThrottleWaitMs` (Retry-After pauses every caller of the target), other 503s, 504s
   * and network errors up to `maxRetries` times. Throws only `TARGET_UNREACHABLE` or
   * `TARGET_TIMEOUT` (network level); every HTTP answer is returned, saying whether an
   * earlier attempt may have been applied and how long the call bore throttling.
   *
   * @example
   * const res = await transport.send({ method: 'GET', url: 'https://scim.example/scim/v2/Users' });
   */
  async send(call: HttpCall): Promise<HttpResult> {
    const url = typeof call.url === 'string' ? new URL(call.url) : call.url;
    const describe = `${call.method} ${describeUrl(url)}`;
    const { now } = this.options;
    const progress = startProgress();
    try {
      for (let attempt = 1; ; attempt++) {
        this.stats.attempts++;
        const entered = now();
        const pass = await this.gate.enter(call.cost);
        // A write under an account's lease is not sent too late ('quota': the limit learns nothing).
        refuseAfterSendDeadline(() => pass.leave('quota'), progress.maybeApplied);
        // Waiting for a slot is the configured concurrency at work, until this call has been
        // throttled: from then on the slots are few because of the throttling. Waiting for
        // its share of the quota is pacing, not throttling.
        progress.throttledWaitMs +=
          progress.throttledRounds > 0 ? now() - entered - pass.pacedMs : pass.pausedMs;
        let result: HttpResult;
        try {
          result = await this.attempt(call, url, describe, attempt);
        } catch (error) {
          pass.leave('failed');
          await this.afterNetworkError(error, call, describe, progress);
          continue;
        }
        const ofQuota =
          call.cost !== undefined && this.options.budget?.learn(result, call.cost, now()) === true;
        const hinted = result.retryAfterMs;
        const throttled = isThrottled(result.status, hinted);
        pass.leave(
          ofQuota
            ? 'quota'
            : throttled || call.throttledInside?.(result) === true
              ? 'throttled'
              : result.status >= 500
                ? 'failed'
                : 'ok',
        );
        if (result.status === 429) this.stats.throttled++;
        const wait = throttled
          ? throttledWait(result.status, hinted, this.gate.pausedForMs, progress, this.options)
          : failedWait(result.status, hinted, progress, this.options);
        if (throttled && !ofQuota) {
          // The target throttles this worker, not this call: every caller waits, even when
          // this call may wait no longer. (A 429 of the quota: its bucket makes them wait.)
          const pauseMs = wait ?? hinted;
          if (pauseMs !== undefined && pauseMs <= this.options.maxRetryAfterMs)
            this.gate.pause(pauseMs);
        }
        if (wait === undefined) {
          if (throttled) this.givingUp(describe, result.status, throttledWaitOf(progress));
          return this.finish(result, progress);
        }
        this.retrying(describe, result.status, wait);
        if (!throttled) await this.options.sleep(wait);
      }
    } finally {
      this.stats.throttledWaitMs += throttledWaitOf(progress);
      this.options.telemetry?.callEnded(throttledWaitOf(progress));
    }
  }

  /** Waits before the next attempt after a network failure, or throws it when it is final. */
  private async afterNetworkError(
    error: unknown,
    call: HttpCall,
    describe: string,
    progress: CallProgress,
  ): Promise<void> {
    // Our own errors (a secret that cannot be read, a token that cannot be had) are not
    // network trouble: they pass through unchanged.
    if (isProvisioningError(error)) throw error;
    progress.maybeApplied ||= mayHaveBeenSent(error);
    const failure = toNetworkError(error, this.options.target, describe, progress.maybeApplied);
    if (call.retry === false || progress.failures >= this.options.maxRetries) throw failure;
    progress.failures++;
    const wait = backoffDelay(progress.failures - 1, this.options.backoff, this.options.random);
    this.options.logger.warn('network error, retrying', {
      target: this.options.target,
      call: describe,
      code: failure.code,
      waitMs: wait,
    });
    this.stats.retries++;
    await this.options.sleep(wait);
  }

  /** A throttled call that may wait no longer: the operator sees it before the step fails. */
  private givingUp(describe: string, status: number, waitedMs: number): void {
    this.options.logger.warn('throttled beyond the wait allowed, returning the answer', {
      target: this.options.target,
      call: describe,
      status,
      waitedMs,
      maxThrottleWaitMs: this.options.maxThrottleWaitMs,
    });
  }

  private finish(result: HttpResult, progress: CallProgress): HttpResult {
    return {
      ...result,
      maybeAppliedBefore: progress.maybeApplied,
      throttledWaitMs: throttledWaitOf(progress),
      throttledAnswers: progress.throttledAnswers,
      maxThrottleWaitMs: this.options.maxThrottleWaitMs,
    };
  }

  /** The target throttled a call answered inside another envelope ($batch): every caller waits. */
  throttle(retryAfterMs: number): void {
    this.gate.pause(retryAfterMs);
  }

  /** Throttling answers inside another envelope (`$batch` sub-responses), for telemetry. */
  throttledInside(answers: number): void {
    this.options.telemetry?.throttledInside(answers);
  }

  private retrying(describe: string, status: number, waitMs: number): void {
    this.options.logger.warn('transient answer, retrying', {
      target: this.options.target,
      call: describe,
      status,
      waitMs,
    });
    this.stats.retries++;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** Removes every known secret from a text: for messages built from what a target said. */
  redact(text: string): string {
    return redactSecrets(text, this.options.secrets?.() ?? []);
  }

  private redactBody(body: unknown): unknown {
    return redactValue(body, this.options.secrets?.() ?? []);
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        // Twice the concurrency (the gate keeps the attempts in flight to `concurrency`): an
        // attempt whose slot was just freed finds an idle connection that is ready. With no
        // more connections than slots it queued for the one that had just answered, which
        // undici reuses only after a check in the next turn of the event loop: every slot
        // was held that turn longer, most of it other work of a busy worker.
        connections: this.options.concurrency * CONNECTIONS_PER_SLOT,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: {
          timeout: this.options.timeoutMs,
          ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
        },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  private async attempt(
    call: HttpCall,
    url: URL,
    describe: string,
    attempts: number,
  ): Promise<HttpResult> {
    const headers: Record<string, string> = {
      accept: 'application/scim+json, application/json;q=0.9, */*;q=0.1',
      ...call.headers,
      ...(await this.options.authorize?.()),
    };
    let body: string | undefined;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = call.contentType ?? 'application/json';
    } else if (call.rawBody !== undefined) {
      body = call.rawBody;
      headers['content-type'] = call.contentType ?? 'application/x-www-form-urlencoded';
    }
    const watch = this.options.telemetry?.attempt({ method: call.method, url });
    let response;
    try {
      response = await requestText(this.pool(url.origin), {
        method: call.method,
        path: `${url.pathname}${url.search}`,
        headers: watch === undefined ? headers : { ...headers, ...watch.headers },
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
    } catch (error) {
      watch?.end({ failure: isTimeout(error) ? 'timeout' : 'network_error' });
      throw error;
    }
    const { text: raw, headers: responseHeaders } = response;
    // The one reading of the answer's Retry-After, on the clock of its arrival: the retry
    // rule, the telemetry and the caller's message all take it from here.
    const retryAfterMs = parseRetryAfter(responseHeaders['retry-after'], this.options.now());
    watch?.end({
      status: response.statusCode,
      throttled: isThrottled(response.statusCode, retryAfterMs),
    });
    const text = this.redact(raw);
    this.options.observer?.({
      request: describe,
      ...(body === undefined ? {} : { requestBody: clip(this.redact(body)) }),
      status: response.statusCode,
      answer: clip(text),
    });
    return {
      status: response.statusCode,
      headers: responseHeaders,
      // Parsed from the raw text (a redaction could break an escape); redacted string by string
      // when the answer holds a secret at all.
      body:
        text === raw
          ? parseLenient(raw, responseHeaders['content-type'])
          : this.redactBody(parseLenient(raw, responseHeaders['content-type'])),
      text,
      describe,
      attempts,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      maybeAppliedBefore: false,
      throttledWaitMs: 0,
      throttledAnswers: 0,
    };
  }
}

function clip(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

/**
 * Lenient reading (scim-interop.md): any JSON media type, a charset parameter, or no
 * content type at all when the body still parses.
 */
function parseLenient(raw: string, contentType: string | undefined): unknown {
  if (raw.trim() === '') return undefined;
  const looksJson = contentType === undefined || /json/i.test(contentType);
  const first = raw.trimStart()[0];
  if (!looksJson && first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
