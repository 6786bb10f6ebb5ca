import { ProvisioningError } from '../../domain/errors';
import type { QuotaAnswer, QuotaBudget } from '../http/quota-budget';
import type { HttpMethod, HttpResult, HttpTransport } from '../http/transport';
import { isGraphNotFound, mapGraphError, type GraphErrorContext } from './graph-error-mapper';
import { isRecord, type GraphObject } from './graph-objects';
import { graphCallCost } from './graph-quota';
import { PagingGuard } from './paging-guard';
import { graphQuery, type GraphQuery } from './graph-urls';

/** One Graph v1.0 call, relative to `{graph_endpoint}/v1.0`, or an absolute nextLink. */
export interface GraphCall {
  method: HttpMethod;
  /** '/users', or an absolute URL (a nextLink, used verbatim). */
  path: string;
  query?: GraphQuery;
  json?: unknown;
  /** Whether an answer tells of throttling inside it (`$batch` sub-responses 429): see HttpCall. */
  throttledInside?: (result: HttpResult) => boolean;
}

/**
 * Graph v1.0 over the shared transport: builds URLs on the configured endpoint, checks
 * each answer's status against what the call accepts and maps the rest through the
 * connector's error mapper, and reads lists across every page.
 */
export class GraphHttp {
  /** `{graph_endpoint}/v1.0`: every URL and `@odata.id` is built on it. */
  readonly root: string;
  private readonly origin: string;
  /** HTTP calls sent (retries not counted: the transport's stats have those). */
  calls = 0;

  constructor(
    readonly graphEndpoint: string,
    private readonly transport: HttpTransport,
    private readonly quota?: QuotaBudget,
    private readonly now: () => number = Date.now,
  ) {
    this.root = `${graphEndpoint}/v1.0`;
    this.origin = new URL(graphEndpoint).origin;
  }

  /** The absolute URL of a call. */
  url(path: string, query?: GraphQuery): string {
    return /^https?:\/\//i.test(path) ? path : `${this.root}${path}${graphQuery(query)}`;
  }

  /** Every caller of this Graph endpoint waits `ms` (a throttled `$batch` sub-request said so). */
  throttle(ms: number): void {
    this.transport.throttle(ms);
  }

  /** `answers` `$batch` sub-requests were throttled (by the quota or not): telemetry counts them. */
  throttledInside(answers: number): void {
    this.transport.throttledInside(answers);
  }

  /**
   * What the answer to a `$batch` sub-request tells of the quota (its own 429, its
   * resource units): each sub-request is charged as a call of its own. True for a 429 of the
   * quota, which its bucket now accounts for.
   */
  learn(answer: QuotaAnswer, request: { method: string; url: string }): boolean {
    return (
      this.quota?.learn(answer, graphCallCost(request.method, request.url), this.now()) === true
    );
  }

  /** Sends a call and returns any answer; only network failures throw. */
  async send(call: GraphCall): Promise<HttpResult> {
    const url = this.url(call.path, call.query);
    if (new URL(url).origin !== this.origin) {
      // The token goes with every call: never to a host other than the configured endpoint.
      throw new ProvisioningError(
        'TARGET_RESPONSE_INVALID',
        `Graph pointed to ${new URL(url).origin}, which is not the configured endpoint ${this.origin}`,
      );
    }
    this.calls++;
    return this.transport.send({
      method: call.method,
      url,
      headers: { accept: 'application/json' },
      cost: graphCallCost(call.method, url, call.json),
      ...(call.json === undefined ? {} : { json: call.json }),
      ...(call.throttledInside === undefined ? {} : { throttledInside: call.throttledInside }),
    });
  }

  /** Sends a call; an answer outside `accepted` becomes the mapped ProvisioningError. */
  async expect(
    call: GraphCall,
    accepted: readonly number[],
    context: GraphErrorContext,
  ): Promise<HttpResult> {
    const result = await this.send(call);
    // A 404 is taken for "missing" only when Graph says so (DESIGN invariant 11).
    if (!accepted.includes(result.status) || (result.status === 404 && !isGraphNotFound(result))) {
      throw mapGraphError(result, context);
    }
    return result;
  }

  /**
   * Every page of a list (spec: Connector B rule 2): `@odata.nextLink` followed verbatim
   * until absent (graph-behaviour.md). Pages are yielded as they come: memory does not
   * grow with the list. A link that repeats, or empty pages that keep linking on, end the
   * read with an error (PagingGuard) rather than loop forever.
   */
  async *pages(call: GraphCall, context: GraphErrorContext): AsyncGenerator<GraphObject[]> {
    const guard = new PagingGuard(context, this.url(call.path, call.query));
    let next: GraphCall | undefined = call;
    while (next !== undefined) {
      const result = await this.expect(next, [200], context);
      const page = readPage(result.body, result.describe);
      yield page.value;
      if (page.nextLink !== undefined) guard.follow(page.value.length, page.nextLink);
      next = page.nextLink === undefined ? undefined : { method: 'GET', path: page.nextLink };
    }
  }

  /** Every item of a list, all pages read. */
  async list(call: GraphCall, context: GraphErrorContext): Promise<GraphObject[]> {
    const items: GraphObject[] = [];
    for await (const page of this.pages(call, context)) items.push(...page);
    return items;
  }
}

/** A collection answer: `value` and an optional `@odata.nextLink`. */
export function readPage(
  body: unknown,
  describe: string,
): { value: GraphObject[]; nextLink?: string } {
  if (!isRecord(body) || !Array.isArray(body.value)) {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `${describe} answered without a "value" list`,
    );
  }
  const nextLink = body['@odata.nextLink'];
  return {
    value: body.value.filter(isRecord),
    ...(typeof nextLink === 'string' && nextLink !== '' ? { nextLink } : {}),
  };
}
