import { TokenBucket } from '../http/token-bucket';
import type { QuotaAnswer, QuotaBudget, QuotaCost } from '../http/quota-budget';
import { isRecord } from './graph-objects';

/**
 * graph-behaviour.md, Errors and throttling: Entra ID's limits per app and tenant. Writes:
 * 3,000 per 150 s, each `$batch` sub-request counting; reads: resource units per 10 s, 3,500
 * for the smallest tenants (5,000 and 8,000 for bigger ones).
 */
export interface GraphQuotaSettings {
  writes: number;
  writeSeconds: number;
  resourceUnits: number;
  resourceUnitSeconds: number;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * The documented cost of one Graph call (Microsoft's throttling limits, identity and access):
 * resource units for every call (GET users 2, a user's memberOf 2, a group's members 3, its
 * transitiveMembers 5, any other call 1; `$select` -1, `$expand` +1, `$top` under 20 -1; never
 * below 1) and one write for every POST, PATCH, PUT and DELETE. A `$batch` costs what its
 * sub-requests cost; the envelope itself nothing.
 *
 * @example
 * graphCallCost('GET', '/users/u1/memberOf?$select=id'); // { units: 1 }
 */
export function graphCallCost(method: string, pathAndQuery: string, json?: unknown): QuotaCost {
  const [path = '', query = ''] = pathAndQuery.split('?', 2);
  if (/\/\$batch$/.test(path) && isRecord(json) && Array.isArray(json.requests)) {
    let units = 0;
    let writes = 0;
    for (const sub of json.requests.filter(isRecord)) {
      if (typeof sub.method !== 'string' || typeof sub.url !== 'string') continue;
      const cost = graphCallCost(sub.method, sub.url);
      units += cost.units ?? 0;
      writes += cost.writes ?? 0;
    }
    return writes > 0 ? { units, writes } : { units };
  }
  const verb = method.toUpperCase();
  const segments = path
    .replace(/^.*\/v1\.0/, '')
    .split('/')
    .filter((s) => s !== '');
  let units = baseUnits(verb, segments);
  const params = new URLSearchParams(query);
  if (params.has('$select')) units -= 1;
  if (params.has('$expand')) units += 1;
  const top = Number(params.get('$top') ?? NaN);
  if (Number.isFinite(top) && top < 20) units -= 1;
  units = Math.max(1, units);
  return WRITE_METHODS.has(verb) ? { units, writes: 1 } : { units };
}

function baseUnits(verb: string, segments: readonly string[]): number {
  if (verb !== 'GET') return 1;
  const [collection, id, relation] = segments;
  if (collection === 'users' && id === undefined) return 2;
  if (collection === 'users' && relation === 'memberOf') return 2;
  if (collection === 'groups' && relation === 'members') return 3;
  if (collection === 'groups' && relation === 'transitiveMembers') return 5;
  return 1;
}

/**
 * The quota of one app in one tenant as a worker paces to it (graph-behaviour.md): a bucket
 * of writes and one of resource units, fed by the documented costs and corrected by what
 * Graph answers: a 429 empties the bucket it names until its Retry-After, the
 * `x-ms-resource-unit` header says what a call really cost, and
 * `x-ms-throttle-limit-percentage` (sent once more than 80 % is used) how much of the quota
 * others have used too.
 */
export class GraphQuota implements QuotaBudget {
  readonly buckets: ReadonlyMap<string, TokenBucket>;

  constructor(settings: GraphQuotaSettings, now: number) {
    this.buckets = new Map([
      [
        'writes',
        new TokenBucket({ capacity: settings.writes, windowMs: settings.writeSeconds * 1000 }, now),
      ],
      [
        'units',
        new TokenBucket(
          { capacity: settings.resourceUnits, windowMs: settings.resourceUnitSeconds * 1000 },
          now,
        ),
      ],
    ]);
  }

  learn(answer: QuotaAnswer, cost: QuotaCost, now: number): boolean {
    const { headers } = answer;
    const writes = this.buckets.get('writes')!;
    const units = this.buckets.get('units')!;
    if (answer.status === 429) {
      const waitMs = answer.retryAfterMs ?? 0;
      const named = quotaNamed(headers);
      for (const bucket of named ?? Object.keys(cost).filter((name) => (cost[name] ?? 0) > 0)) {
        (bucket === 'writes' ? writes : units).emptyUntil(now + waitMs, now);
      }
      return named !== undefined;
    }
    const charged = Number(headers['x-ms-resource-unit']);
    if (Number.isFinite(charged) && charged > 0) units.adjust(charged - (cost.units ?? 0), now);
    const share = Number(headers['x-ms-throttle-limit-percentage']);
    if (Number.isFinite(share) && share > 0) {
      ((cost.writes ?? 0) > 0 ? writes : units).used(share, now);
    }
    return false;
  }
}

/**
 * The bucket a 429 names as its limit (`x-ms-throttle-information`, `x-ms-throttle-scope`);
 * undefined for a 429 that names none (another limit, a gateway): every bucket the call
 * spent from is emptied then, and every caller pauses as for any throttling.
 */
export function quotaNamed(headers: Record<string, string>): string[] | undefined {
  const information = headers['x-ms-throttle-information'] ?? '';
  const scope = headers['x-ms-throttle-scope'] ?? '';
  if (/WriteLimitExceeded/i.test(information) || /\/Write\//i.test(scope)) return ['writes'];
  if (/ResourceUnitLimitExceeded/i.test(information) || /\/Read\//i.test(scope)) {
    return ['units'];
  }
  return undefined;
}

const shared = new Map<string, GraphQuota>();

/** Which app in which tenant of which Graph endpoint: what Entra ID's limits are counted by. */
interface QuotaOwner {
  graphEndpoint: string;
  tenantId: string;
  clientId: string;
}

function quotaId(key: QuotaOwner): string {
  return `${key.graphEndpoint}|${key.tenantId.toLowerCase()}|${key.clientId.toLowerCase()}`;
}

/**
 * The worker's quota of one app in one tenant of one Graph endpoint: every connector that
 * calls as that app shares it, whatever its name (the limits are per app and tenant). Their
 * `quota` settings agree (checked at start: {@link quotaConflicts}).
 */
export function sharedGraphQuota(
  key: QuotaOwner,
  settings: GraphQuotaSettings,
  now: number,
): GraphQuota {
  const id = quotaId(key);
  let quota = shared.get(id);
  if (quota === undefined) {
    quota = new GraphQuota(settings, now);
    shared.set(id, quota);
  }
  return quota;
}

/**
 * Connectors that call as the same app in the same tenant share one quota, paced by the
 * first one's `quota` setting: a second connector's different setting would be ignored
 * silently, so it is refused at start, naming both connectors and both settings.
 *
 * @example
 * quotaConflicts([hr, it]); // ['connectors "hr" and "it": setting "quota": ...'] when they differ
 */
export function quotaConflicts(
  connectors: readonly (QuotaOwner & { name: string; quota: GraphQuotaSettings })[],
): string[] {
  const first = new Map<string, { name: string; quota: GraphQuotaSettings }>();
  const problems: string[] = [];
  for (const connector of connectors) {
    const id = quotaId(connector);
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, connector);
    else if (!sameQuota(earlier.quota, connector.quota)) {
      problems.push(
        `connectors "${earlier.name}" and "${connector.name}": setting "quota": both call as ` +
          `app ${connector.clientId} in tenant ${connector.tenantId}, which has one quota, ` +
          `so their quota settings must agree (${describeQuota(earlier.quota)} against ` +
          `${describeQuota(connector.quota)})`,
      );
    }
  }
  return problems;
}

function sameQuota(a: GraphQuotaSettings, b: GraphQuotaSettings): boolean {
  return (
    a.writes === b.writes &&
    a.writeSeconds === b.writeSeconds &&
    a.resourceUnits === b.resourceUnits &&
    a.resourceUnitSeconds === b.resourceUnitSeconds
  );
}

function describeQuota(quota: GraphQuotaSettings): string {
  return `${quota.writes} writes per ${quota.writeSeconds} s, ${quota.resourceUnits} resource units per ${quota.resourceUnitSeconds} s`;
}
