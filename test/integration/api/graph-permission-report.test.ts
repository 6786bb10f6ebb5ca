import { HttpRequest, InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/api-deps';
import { apiRoutes } from '../../../src/api/routes';
import type { StatusResult } from '../../../src/connectors/connector';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { NO_QUARANTINE } from '../../support/no-quarantine';
import {
  connectorName,
  featureOutcomes,
  PERMISSION_SETS,
  startPermissionTarget,
  type PermissionTarget,
} from '../../support/graph-permission-sets';

/** Issue 12, finding 1, through `POST /api/connectors/{name}/status?probe=true`. */
let target: PermissionTarget;
let routes: ReturnType<typeof apiRoutes>;

beforeAll(async () => {
  target = await startPermissionTarget();
  const deps = {
    services: () =>
      Promise.resolve({
        registry: target.registry,
        quarantine: NO_QUARANTINE,
        // Where the health report keeps the last check: not what this file looks at.
        connectorStates: { recordStatusCheck: () => Promise.resolve() },
      } as unknown as WorkflowServices),
    now: () => new Date(),
  } as unknown as ApiDeps;
  routes = apiRoutes(deps);
});
afterAll(async () => target.close());

async function call(route: string, method: string, path: string, params: Record<string, string>) {
  const request = new HttpRequest({ method, url: `http://127.0.0.1:7071/api/${path}`, params });
  const handler = routes.find((candidate) => candidate.name === route)!.handler;
  return handler(request, new InvocationContext({ functionName: route }));
}

const postStatus = (name: string, query: string) =>
  call('connectorStatus', 'POST', `connectors/${name}/status${query}`, { name });

const getAccount = (name: string, accountId: string) =>
  call('getAccount', 'GET', `connectors/${name}/accounts/${accountId}`, { name, accountId });

const set = (name: string) => PERMISSION_SETS.find((candidate) => candidate.name === name)!;

describe('POST /api/connectors/{name}/status?probe=true, per permission set', () => {
  it.each(PERMISSION_SETS)('$name', async (set) => {
    const response = await target.withLicence(set, () =>
      postStatus(connectorName(set), '?probe=true'),
    );
    expect(response.status).toBe(200);
    const body = response.jsonBody as StatusResult;
    expect(featureOutcomes(body.findings)).toEqual(set.probed);
    for (const finding of body.findings.slice(1)) {
      expect(finding.detail).toMatch(
        /^(proof: |hint: |the access token|writes are not probed|GET )/,
      );
    }
  });

  it('without probe=true the report rests on the token claim alone', async () => {
    const response = await postStatus(connectorName(set('users-and-members')), '');
    expect(featureOutcomes((response.jsonBody as StatusResult).findings)).toEqual(
      set('users-and-members').claimed,
    );
  });
});

describe('GET /api/connectors/{name}/accounts/{accountId} with fewer permissions', () => {
  const accountId = 'first.member@contoso.example';

  it('without AuditLog.Read.All: 200, last logon "not available (needs AuditLog.Read.All)" (finding 2)', async () => {
    const response = await getAccount(connectorName(set('users-and-members')), accountId);
    expect(response.status).toBe(200);
    expect(response.jsonBody).toMatchObject({
      account: { accountId, enabled: true },
      lastLogon: { status: 'not available', detail: 'needs AuditLog.Read.All' },
      directMemberships: [{ displayName: 'Probe Group' }],
    });
  });

  it('without a group read permission: the group by its id, with a notice saying why (finding 4)', async () => {
    const response = await getAccount(connectorName(set('user-read')), accountId);
    expect(response.status).toBe(200);
    const view = response.jsonBody as {
      directMemberships: { id: string; displayName: string; notReadable?: string }[];
      notices: { kind: string; message: string }[];
    };
    const [group] = view.directMemberships;
    expect(group?.notReadable).toBe(
      'the app lacks permission to read this group: Microsoft Graph returned only its type and id',
    );
    expect(group?.displayName).toBe(group?.id);
    expect(view.notices).toContainEqual(
      expect.objectContaining({
        kind: 'not-readable',
        message: expect.stringContaining(group!.id),
      }),
    );
  });
});
