import { Pool } from 'undici';
import { ProvisioningError, isProvisioningError } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { describeUrl, redactSecrets } from './redact';
import { parseRetryAfter } from './retry-after';

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

const RETRYABLE_STATUSES = new Set([429, 503, 504]);
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
  readonly stats: TransportStats = { attempts: 0, retries: 0, throttled: 0 };
  private readonly pools = new Map<string, Pool>();
  private readonly options: Required<
    Omit<TransportOptions, 'authorize' | 'secrets' | 'ca' | 'logger' | 'observer'>
  > &
    Pick<TransportOptions, 'authorize' | 'secrets' | 'ca' | 'observer'> & { logger: Logger };

  constructor(options: TransportOptions) {
    this.options = {
      backoff: DEFAULT_BACKOFF,
      maxRetryAfterMs: 120_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      now: Date.now,
      ...options,
      logger: options.logger ?? silentLogger,
    };
  }

  /**
   * Sends one call, retrying what may be retried. Throws only `TARGET_UNREACHABLE` or
   * `TARGET_TIMEOUT` (network level); every HTTP answer is returned.
   *
   * @example
   * const res = await transport.send({ method: 'GET', url: 'https://scim.example/scim/v2/Users' });
   */
  async send(call: HttpCall): Promise<HttpResult> {
    const url = typeof call.url === 'string' ? new URL(call.url) : call.url;
    const describe = `${call.method} ${describeUrl(url)}`;
    const { maxRetries } = this.options;
    for (let attempt = 0; ; attempt++) {
      this.stats.attempts++;
      let result: HttpResult | undefined;
      let failure: unknown;
      try {
        result = await this.attempt(call, url, describe, attempt + 1);
      } catch (error) {
        // Our own errors (a secret that cannot be read, a token that cannot be had) are not
        // network trouble: they pass through unchanged.
        if (isProvisioningError(error)) throw error;
        failure = error;
      }
      const canRetry = attempt < maxRetries;
      if (result !== undefined) {
        if (!RETRYABLE_STATUSES.has(result.status) || !canRetry) return result;
        if (result.status === 429) this.stats.throttled++;
        const hinted = parseRetryAfter(result.headers['retry-after'], this.options.now());
        if (hinted !== undefined && hinted > this.options.maxRetryAfterMs) return result;
        const wait = hinted ?? backoffDelay(attempt, this.options.backoff, this.options.random);
        this.options.logger.warn('transient answer, retrying', {
          target: this.options.target,
          call: describe,
          status: result.status,
          waitMs: wait,
        });
        this.stats.retries++;
        await this.options.sleep(wait);
        continue;
      }
      const networkError = this.toNetworkError(failure, describe);
      if (call.retry === false || !canRetry) throw networkError;
      const wait = backoffDelay(attempt, this.options.backoff, this.options.random);
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
    };
  }

  private toNetworkError(error: unknown, describe: string): ProvisioningError {
    const code = errorCode(error);
    const timedOut = code !== undefined && TIMEOUT_CODES.has(code);
    const reason = code ?? (error instanceof Error ? error.name : 'unknown error');
    return new ProvisioningError(
      timedOut ? 'TARGET_TIMEOUT' : 'TARGET_UNREACHABLE',
      `${this.options.target}: ${describe} ${timedOut ? 'timed out' : 'failed'} (${reason})`,
      { retryable: true, object: this.options.target },
    );
  }
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
