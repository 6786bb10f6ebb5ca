import { describe, expect, it } from 'vitest';
import { graphCallCost, GraphQuota } from '../../../../src/connectors/graph/graph-quota';
import { loadConfig } from '../../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../../src/connectors/connector-kinds';

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

  it('empties the bucket a 429 names until its Retry-After, as the transport read it', () => {
    const q = quota();
    q.learn(
      {
        status: 429,
        headers: {
          'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT',
          'x-ms-throttle-information': 'WriteLimitExceeded',
        },
        retryAfterMs: 7_000,
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

describe('connectors sharing an app in a tenant', () => {
  const entra = {
    name: 'entra',
    kind: 'graph',
    tenantId: '00000000-0000-0000-0000-000000000000',
    clientId: '11111111-1111-1111-1111-111111111111',
    clientSecretName: 'entra-provisioning-client-secret',
    upnDomain: 'contoso.com',
  };
  const load = (connectors: unknown[]) =>
    loadConfig({ PROVISIONING_CONNECTORS: JSON.stringify(connectors) }, connectorSettingsKinds());

  it('refuses different quota settings at start, naming both connectors and both quotas', () => {
    const second = {
      ...entra,
      name: 'entra-staff',
      // Same app and tenant, written in other cases: Entra ID compares them without case.
      tenantId: entra.tenantId.toUpperCase(),
      quota: { writes: 6000 },
    };
    expect(() => load([entra, second])).toThrow(
      'connectors "entra" and "entra-staff": setting "quota": both call as app ' +
        '11111111-1111-1111-1111-111111111111 in tenant 00000000-0000-0000-0000-000000000000, ' +
        'which has one quota, so their quota settings must agree (3000 writes per 150 s, 3500 ' +
        'resource units per 10 s against 6000 writes per 150 s, 3500 resource units per 10 s)',
    );
  });

  it('accepts connectors of one app that agree, and of other apps or tenants that do not', () => {
    const agreeing = { ...entra, name: 'entra-staff', quota: { writes: 3000, writeSeconds: 150 } };
    expect(load([entra, agreeing]).connectors.map((c) => c.name)).toEqual(['entra', 'entra-staff']);
    const otherApp = {
      ...entra,
      name: 'entra-other-app',
      clientId: '22222222-2222-2222-2222-222222222222',
      quota: { writes: 6000 },
    };
    const otherTenant = {
      ...entra,
      name: 'entra-other-tenant',
      tenantId: '33333333-3333-3333-3333-333333333333',
      quota: { writes: 6000 },
    };
    expect(load([entra, otherApp, otherTenant]).connectors).toHaveLength(3);
  });
});
