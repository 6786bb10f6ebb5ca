import type { ScimConnectorSettings } from './scim-settings';
import type { Logger } from '../../domain/logger';
import type { SecretStore } from '../../secrets/secret-store';
import type { CallObserver } from '../http/call-observer';
import {
  HttpTransport,
  transportOptionsOf,
  type HttpExchange,
  type HttpMethod,
  type HttpResult,
} from '../http/transport';
import type { ProvisioningError } from '../../domain/errors';
import { mapScimError, type ScimErrorContext } from './error-mapper';
import { isNotFoundAnswer } from './not-found-answer';

export interface ScimHttpOptions {
  secrets: SecretStore;
  logger?: Logger;
  observer?: (exchange: HttpExchange) => void;
  /** Telemetry of every call to the server. */
  telemetry?: CallObserver;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface ScimCall {
  method: HttpMethod;
  url: URL;
  json?: unknown;
  /** The statuses this operation accepts (STYLE: scim2-client); others go to the error mapper. */
  accept: readonly number[];
  context: ScimErrorContext;
  /** Values to redact while this call runs (a password being set). */
  transientSecrets?: readonly string[];
}

export const SCIM_MEDIA_TYPE = 'application/scim+json';

/**
 * Connector A's side of the transport: credentials from the SecretStore (resolved once,
 * never logged), the SCIM media type, accepted statuses per operation, and the one
 * error mapper for everything else.
 */
export class ScimHttp {
  readonly transport: HttpTransport;
  private readonly transient = new Set<string>();
  private known: string[] = [];

  constructor(
    private readonly settings: ScimConnectorSettings,
    private readonly options: ScimHttpOptions,
  ) {
    this.transport = new HttpTransport({
      ...transportOptionsOf(settings),
      authorize: async () => (await this.resolveCredentials()).headers,
      secrets: () => [...this.known, ...this.transient],
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  async send(call: ScimCall): Promise<HttpResult> {
    const added = (call.transientSecrets ?? []).filter((secret) => !this.transient.has(secret));
    for (const secret of added) this.transient.add(secret);
    try {
      const result = await this.transport.send({
        method: call.method,
        url: call.url,
        headers: { accept: `${SCIM_MEDIA_TYPE}, application/json;q=0.9` },
        ...(call.json === undefined ? {} : { json: call.json, contentType: SCIM_MEDIA_TYPE }),
      });
      // A 404 is taken for "missing" only when the server says so (DESIGN invariant 11).
      if (
        !call.accept.includes(result.status) ||
        (result.status === 404 && !isNotFoundAnswer(result, this.settings.notFoundAnswer))
      ) {
        throw this.mapError(result, call.context);
      }
      return result;
    } finally {
      for (const secret of added) this.transient.delete(secret);
    }
  }

  /** The connector's error for an answer its operation does not take (its notFoundAnswer too). */
  mapError(result: HttpResult, context: ScimErrorContext): ProvisioningError {
    return mapScimError(result, context, this.settings.notFoundAnswer);
  }

  /** Sends a call whose answer is judged by the caller (status checks, compatibility probes). */
  async probe(method: HttpMethod, url: URL): Promise<HttpResult> {
    return this.transport.send({ method, url, headers: { accept: SCIM_MEDIA_TYPE } });
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * The credentials for one request, read from the SecretStore every time (the store
   * caches them): a rotated token or password is used within the store's cache time.
   */
  private resolveCredentials(): Promise<{ headers: Record<string, string>; secrets: string[] }> {
    return this.loadCredentials();
  }

  /** Spec: Authentication, connector A: Bearer, Basic or nothing; no other scheme. */
  private async loadCredentials(): Promise<{ headers: Record<string, string>; secrets: string[] }> {
    const { auth } = this.settings;
    switch (auth.type) {
      case 'none':
        return { headers: {}, secrets: [] };
      case 'bearer': {
        const token = await this.options.secrets.get(auth.tokenSecret);
        this.remember(token);
        return { headers: { authorization: `Bearer ${token}` }, secrets: this.known };
      }
      case 'basic': {
        const password = await this.options.secrets.get(auth.passwordSecret);
        const encoded = Buffer.from(`${auth.username}:${password}`).toString('base64');
        this.remember(password, encoded);
        return { headers: { authorization: `Basic ${encoded}` }, secrets: this.known };
      }
    }
  }

  /** Keeps the values to redact; a previous credential stays redacted after a rotation. */
  private remember(...values: string[]): void {
    if (values.every((value) => this.known.includes(value))) return;
    this.known = [...new Set([...values, ...this.known])].slice(0, 8);
  }
}
