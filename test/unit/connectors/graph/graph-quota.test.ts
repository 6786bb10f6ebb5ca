import { describe, expect, it } from 'vitest';
import { graphCallCost, GraphQuota } from '../../../../src/connectors/graph/graph-quota';

describe('graphCallCost: the documented cost of a call', () => {
  it.each<[string, string, Record<string, number>]>([
    ['GET', '/users', { units: 2 }],
    ['GET', '/users?$select=id', { units: 1 }],
    [
      'GET',
      'https://graph.microsoft.com/v1.0/users/u1/memberOf?$select=id,displayName',
      { units: 1 },
    ],
    ['GET', '/users/u1/memberOf', { units: 2 }],
    ['GET', '/groups/g1/members?$top=999', { units: 3 }],
    ['GET', '/groups/g1/transitiveMembers', { units: 5 }],
    ['GET', '/groups?$top=5', { units: 1 }],
    ['POST', '/users', { units: 1, writes: 1 }],
    ['DELETE', '/groups/g1/members/u1/$ref', { units: 1, writes: 1 }],
  ])('%s %s', (method, path, cost) => {
    expect(graphCallCost(method, path)).toEqual(cost);
  });

  it('charges a $batch for each sub-request, the envelope for nothing', () => {
    const body = {
      requests: [
        { id: '1', method: 'POST', url: '/groups/a/members/$ref' },
        { id: '2', method: 'POST', url: '/groups/b/members/$ref' },
        { id: '3', method: 'GET', url: '/groups/c?$select=id' },
      ],
    };
    expect(graphCallCost('POST', 'https://graph.microsoft.com/v1.0/$batch', body)).toEqual({
      units: 3,
      writes: 2,
    });
  });
});

describe('GraphQuota: corrected by what Graph answers', () => {
  const quota = () =>
    new GraphQuota(
      { writes: 100, writeSeconds: 100, resourceUnits: 50, resourceUnitSeconds: 10 },
      0,
    );
  const waitFor = (q: GraphQuota, name: string, units: number) =>
    q.buckets.get(name)!.take(units, 0);

  it('empties the bucket a 429 names until its Retry-After', () => {
    const q = quota();
    q.learn(
      {
        status: 429,
        headers: { 'retry-after': '7', 'x-ms-throttle-information': 'WriteLimitExceeded' },
      },
      { units: 1, writes: 1 },
      0,
    );
    expect(waitFor(q, 'writes', 1)).toBe(8_000);
    expect(waitFor(q, 'units', 1)).toBe(0);
  });

  it('charges what x-ms-resource-unit says, and trusts a higher x-ms-throttle-limit-percentage', () => {
    const q = quota();
    q.learn({ status: 200, headers: { 'x-ms-resource-unit': '5' } }, { units: 1 }, 0);
    expect(q.buckets.get('units')!.levelAt(0)).toBe(46);
    q.learn(
      { status: 204, headers: { 'x-ms-throttle-limit-percentage': '0.95' } },
      { units: 1, writes: 1 },
      0,
    );
    expect(q.buckets.get('writes')!.levelAt(0)).toBeCloseTo(5);
  });
});
