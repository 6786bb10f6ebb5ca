import { Pool } from 'undici';
import { ProvisioningError, isProvisioningError } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { describeUrl, redactSecrets } from './redact';
import { parseRetryAfter } from './retry-after';
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
  /** Connections per origin: the per-target concurrency limit (DESIGN invariant 8). */
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

const RETRYABLE_STATUSES = new Set([429, 503, 504]);
/** Network failures that happen before a request is sent: it cannot have been applied. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 200, maxDelayMs: 10_000 };

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The shared outbound transport (DESIGN: src/connectors/http): a keep-alive pool per origin
 * whose connection count is the concurrency limit, a timeout per call, bounded retries with
 * exponential backoff and jitter for 429, 503, 504 and network errors, `Retry-After`
 * honoured. Answers of any other status are returned for the connector's error mapper.
 */
export class HttpTransport {
  readonly stats: TransportStats = { attempts: 0, retries: 0, throttled: 0, throttledWaitMs: 0 };
  /** The target's throttle gate: every attempt of every call of this worker passes it. */
  readonly gate: ThrottleGate;
  private readonly pools = new Map<string, Pool>();
  private readonly options: Required<
    Omit<TransportOptions, 'authorize' | 'secrets' | 'ca' | 'logger' | 'observer'>
  > &
    Pick<TransportOptions, 'authorize' | 'secrets' | 'ca' | 'observer'> & { logger: Logger };

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
    });
  }

  /**
   * Sends one call through the target's gate, retrying what may be retried: 429 for as long
   * as the call's throttle wait stays under `maxThrottleWaitMs` (Retry-After pauses every
   * caller of the target), 503/504 and network errors up to `maxRetries` times. Throws only
   * `TARGET_UNREACHABLE` or `TARGET_TIMEOUT` (network level); every HTTP answer is returned.
   *
   * @example
   * const res = await transport.send({ method: 'GET', url: 'https://scim.example/scim/v2/Users' });
   */
  async send(call: HttpCall): Promise<HttpResult> {
    const url = typeof call.url === 'string' ? new URL(call.url) : call.url;
    const describe = `${call.method} ${describeUrl(url)}`;
    const { maxRetries, now } = this.options;
    const progress = { maybeApplied: false, throttledWaitMs: 0, throttledAnswers: 0 };
    const finish = (result: HttpResult): HttpResult => {
      this.stats.throttledWaitMs += progress.throttledWaitMs;
      return {
        ...result,
        maybeAppliedBefore: progress.maybeApplied,
        throttledWaitMs: progress.throttledWaitMs,
        throttledAnswers: progress.throttledAnswers,
      };
    };
    let failures = 0;
    for (let attempt = 0; ; attempt++) {
      this.stats.attempts++;
      const entered = now();
      const leave = await this.gate.enter();
      progress.throttledWaitMs += now() - entered;
      let result: HttpResult | undefined;
      let failure: unknown;
      try {
        result = await this.attempt(call, url, describe, attempt + 1);
      } catch (error) {
        // Our own errors (a secret that cannot be read, a token that cannot be had) are not
        // network trouble: they pass through unchanged.
        if (isProvisioningError(error)) {
          leave('failed');
          throw error;
        }
        failure = error;
      }
      if (result !== undefined) {
        const status = result.status;
        const hinted = parseRetryAfter(result.headers['retry-after'], now());
        const throttled = status === 429 || (status === 503 && hinted !== undefined);
        leave(throttled ? 'throttled' : status >= 500 ? 'failed' : 'ok');
        if (!RETRYABLE_STATUSES.has(status)) return finish(result);
        if (status === 429) {
          this.stats.throttled++;
          progress.throttledAnswers++;
          const wait =
            hinted ??
            backoffDelay(progress.throttledAnswers - 1, this.options.backoff, this.options.random);
          if (progress.throttledWaitMs + wait > this.options.maxThrottleWaitMs)
            return finish(result);
          this.retrying(describe, status, wait);
          // The target is throttling this worker, not this call: every caller waits.
          this.gate.pause(wait);
          continue;
        }
        // A gateway that gave up (503 without Retry-After, 504) may have passed the request on.
        if (hinted === undefined) progress.maybeApplied = true;
        if (failures >= maxRetries) return finish(result);
        if (hinted !== undefined && hinted > this.options.maxRetryAfterMs) return finish(result);
        failures++;
        const wait =
          hinted ?? backoffDelay(failures - 1, this.options.backoff, this.options.random);
        this.retrying(describe, status, wait);
        if (throttled) this.gate.pause(wait);
        else await this.options.sleep(wait);
        continue;
      }
      leave('failed');
      const sent = mayHaveBeenSent(failure);
      const networkError = this.toNetworkError(failure, describe, progress.maybeApplied || sent);
      if (call.retry === false || failures >= maxRetries) throw networkError;
      progress.maybeApplied ||= sent;
      failures++;
      const wait = backoffDelay(failures - 1, this.options.backoff, this.options.random);
      this.options.logger.warn('network error, retrying', {
        target: this.options.target,
        call: describe,
        code: networkError.code,
        waitMs: wait,
      });
      this.stats.retries++;
      await this.options.sleep(wait);
    }
  }

  /** The target throttled a call answered inside another envelope ($batch): every caller waits. */
  throttle(retryAfterMs: number): void {
    this.gate.pause(retryAfterMs);
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

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: this.options.concurrency,
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
    const response = await this.pool(url.origin).request({
      method: call.method,
      path: `${url.pathname}${url.search}`,
      headers,
      body,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    });
    const raw = await response.body.text();
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined)
        responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
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
      body: parseLenient(raw, responseHeaders['content-type']),
      text,
      describe,
      attempts,
      maybeAppliedBefore: false,
      throttledWaitMs: 0,
      throttledAnswers: 0,
    };
  }

  private toNetworkError(
    error: unknown,
    describe: string,
    maybeApplied: boolean,
  ): ProvisioningError {
    const code = errorCode(error);
    const timedOut = code !== undefined && TIMEOUT_CODES.has(code);
    const reason = code ?? (error instanceof Error ? error.name : 'unknown error');
    return new ProvisioningError(
      timedOut ? 'TARGET_TIMEOUT' : 'TARGET_UNREACHABLE',
      `${this.options.target}: ${describe} ${timedOut ? 'timed out' : 'failed'} (${reason})`,
      { retryable: true, object: this.options.target, details: { maybeApplied } },
    );
  }
}

/** Whether a network failure may have come after the request reached the target. */
function mayHaveBeenSent(error: unknown): boolean {
  const code = errorCode(error);
  return code === undefined || !NOT_SENT_CODES.has(code);
}

function clip(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined ? undefined : errorCode(cause);
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
