import { throttledReply } from './graph-fault-replies.js';
import type { GraphReply } from './graph-error.js';

/**
 * Quota mode (graph-behaviour.md, Errors and throttling; Microsoft's identity and access
 * limits): per app in the tenant, a token bucket of writes (3,000 per 150 s, every POST,
 * PATCH, PUT and DELETE, each `$batch` sub-request counting) and one of read resource units
 * (3,500 per 10 s: GET users 2, a user's memberOf 2, a group's members 3, transitiveMembers
 * 5, any other call 1; `$select` -1, `$expand` +1, `$top` under 20 -1; at least 1).
 */
export interface GraphQuotaOptions {
  /** Default 3,000 writes per 150,000 ms. */
  writes?: number;
  writeWindowMs?: number;
  /** Default 3,500 resource units per 10,000 ms. */
  resourceUnits?: number;
  resourceUnitWindowMs?: number;
  /**
   * The quota runs this many times faster than the sandbox's clock (default 1): the same
   * shape in a tenth of the time at 10. Retry-After is in the quota's seconds, so a client
   * must run on a clock sped up alike.
   */
  timeScale?: number;
  /** Both buckets start empty, as in the middle of a long bulk run (default: full). */
  startEmpty?: boolean;
}

/** What the quota saw: calls charged, of which writes, and the 429s it answered. */
export interface GraphQuotaStats {
  /** The quota's clock (ms) when quota mode was switched on. */
  startedAt: number;
  calls: number;
  writes: number;
  throttled: number;
  /** The quota's clock (ms) at the first and the last write it let through. */
  firstWriteAt?: number;
  lastWriteAt?: number;
}

/** One token bucket: `level` units, refilled at `rate` per ms up to `capacity`. */
class Bucket {
  private level: number;
  private at: number;

  constructor(
    readonly capacity: number,
    readonly rate: number,
    now: number,
    empty: boolean,
  ) {
    this.level = empty ? 0 : capacity;
    this.at = now;
  }

  /**
   * Charges `cost`: undefined when it was there, else the ms until it would be. A refused
   * call still counts (graph-behaviour.md: requests sent while throttled still count), down
   * to one bucket's worth of debt.
   */
  charge(cost: number, now: number): number | undefined {
    this.level = Math.min(this.capacity, this.level + (now - this.at) * this.rate);
    this.at = now;
    const enough = this.level >= cost;
    this.level = Math.max(-this.capacity, this.level - cost);
    // Until a call of the same cost would pass.
    return enough ? undefined : (cost - this.level) / this.rate;
  }

  /** The share of the bucket used now. */
  used(): number {
    return (this.capacity - this.level) / this.capacity;
  }
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Entra ID's per-app limits, charged call by call (see {@link GraphQuotaOptions}). */
export class EntraQuota {
  readonly stats: GraphQuotaStats;
  private readonly apps = new Map<string, { writes: Bucket; units: Bucket }>();
  private readonly origin: number;

  constructor(
    private readonly options: Required<GraphQuotaOptions>,
    private readonly tenantId: string,
    private readonly now: () => number,
  ) {
    this.origin = now();
    this.stats = { startedAt: this.origin, calls: 0, writes: 0, throttled: 0 };
  }

  /** The quota with the documented defaults filled in. */
  static withDefaults(options: GraphQuotaOptions, tenantId: string, now: () => number): EntraQuota {
    return new EntraQuota(
      {
        writes: options.writes ?? 3000,
        writeWindowMs: options.writeWindowMs ?? 150_000,
        resourceUnits: options.resourceUnits ?? 3500,
        resourceUnitWindowMs: options.resourceUnitWindowMs ?? 10_000,
        timeScale: options.timeScale ?? 1,
        startEmpty: options.startEmpty ?? false,
      },
      tenantId,
      now,
    );
  }

  /**
   * Charges one call of `appId`: a 429 to answer (Retry-After in whole seconds of the quota's
   * clock, `x-ms-throttle-scope`, `x-ms-throttle-information`), or the headers Entra adds to
   * a call it lets through (`x-ms-resource-unit`, and `x-ms-throttle-limit-percentage` once
   * more than 80 % of the limit is used).
   */
  charge(
    appId: string,
    call: { method: string; segments: readonly string[]; query: URLSearchParams },
  ): { refused: GraphReply } | { headers: Record<string, string> } {
    const now = this.quotaNow();
    const app = this.bucketsOf(appId, now);
    const units = resourceUnits(call.method, call.segments, call.query);
    const write = WRITE_METHODS.has(call.method.toUpperCase());
    this.stats.calls += 1;
    const writeWait = write ? app.writes.charge(1, now) : undefined;
    const unitWait = writeWait === undefined ? app.units.charge(units, now) : undefined;
    const waitMs = writeWait ?? unitWait;
    if (waitMs !== undefined) {
      this.stats.throttled += 1;
      const limit = writeWait !== undefined ? 'Write' : 'Read';
      const reply = throttledReply(Math.max(1, Math.ceil(waitMs / 1000)), this.now());
      reply.headers = {
        ...reply.headers,
        'x-ms-throttle-scope': `Tenant_Application/${limit}/${appId}/${this.tenantId}`,
        'x-ms-throttle-information':
          limit === 'Write' ? 'WriteLimitExceeded' : 'ResourceUnitLimitExceeded',
      };
      return { refused: reply };
    }
    if (write) {
      this.stats.writes += 1;
      this.stats.firstWriteAt ??= now;
      this.stats.lastWriteAt = now;
    }
    const used = (write ? app.writes : app.units).used();
    return {
      headers: {
        'x-ms-resource-unit': String(units),
        ...(used > 0.8 ? { 'x-ms-throttle-limit-percentage': used.toFixed(2) } : {}),
      },
    };
  }

  /** The quota's clock: the sandbox's, sped up `timeScale` times. */
  quotaNow(): number {
    return this.origin + (this.now() - this.origin) * this.options.timeScale;
  }

  private bucketsOf(appId: string, now: number) {
    let app = this.apps.get(appId);
    if (app === undefined) {
      const { options } = this;
      app = {
        writes: new Bucket(
          options.writes,
          options.writes / options.writeWindowMs,
          now,
          options.startEmpty,
        ),
        units: new Bucket(
          options.resourceUnits,
          options.resourceUnits / options.resourceUnitWindowMs,
          now,
          options.startEmpty,
        ),
      };
      this.apps.set(appId, app);
    }
    return app;
  }
}

/** The documented resource units of one call. */
function resourceUnits(
  method: string,
  segments: readonly string[],
  query: URLSearchParams,
): number {
  const [collection, id, relation] = segments;
  let units = 1;
  if (method.toUpperCase() === 'GET') {
    if (collection === 'users' && (id === undefined || relation === 'memberOf')) units = 2;
    if (collection === 'groups' && relation === 'members') units = 3;
    if (collection === 'groups' && relation === 'transitiveMembers') units = 5;
  }
  if (query.has('$select')) units -= 1;
  if (query.has('$expand')) units += 1;
  const top = Number(query.get('$top') ?? NaN);
  if (Number.isFinite(top) && top < 20) units -= 1;
  return Math.max(1, units);
}
