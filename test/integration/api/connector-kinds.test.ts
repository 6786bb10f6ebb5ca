import { HttpRequest, InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/api-deps';
import { apiRoutes } from '../../../src/api/routes';
import { loadConfig } from '../../../src/config/app-config';
import {
  connectorSettingsKinds,
  registerConnectorKind,
} from '../../../src/connectors/connector-kinds';
import { ProvisioningError } from '../../../src/domain/errors';
import { silentLogger } from '../../../src/domain/logger';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { startServiceRuntime, type ServiceRuntime } from '../../../src/runtime/service-runtime';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { jobInstanceId, requestInstanceId } from '../../../src/workflows/names';
import { MEMORY_KIND, memoryTarget } from '../../support/memory-kind';

/**
 * A third connector kind, registered the way the built-in ones are (a settings schema, a
 * descriptor, one registration), is configured, listed and served by the same API, and a
 * provisioning request runs through it: nothing in the configuration, the API, the jobs,
 * the orchestrations or the activities knows the kinds by name.
 */
let runtime: ServiceRuntime;
let unregister: () => void;
let routes: ReturnType<typeof apiRoutes>;

beforeAll(async () => {
  unregister = registerConnectorKind(MEMORY_KIND);
  const config = loadConfig(
    {
      PROVISIONING_CONNECTORS: JSON.stringify([
        { name: 'mem', kind: 'memory', groups: ['Memory One', 'Memory Two'] },
      ]),
    },
    connectorSettingsKinds(),
  );
  runtime = await startServiceRuntime({
    config,
    logger: silentLogger,
    secrets: new LocalSecretStore(),
    clock: new VirtualClock(Date.parse('2026-11-23T08:00:00Z')),
  });
  const deps: ApiDeps = {
    services: async () => runtime.services,
    orchestrations: () => runtime.driver,
    now: () => new Date(),
  };
  routes = apiRoutes(deps);
});
afterAll(async () => {
  await runtime?.close();
  unregister();
});

async function call(name: string, params: Record<string, string>, query = '', body?: unknown) {
  const route = routes.find((r) => r.name === name)!;
  const request = new HttpRequest({
    method: route.method,
    url: `http://127.0.0.1/api/${route.route}${query}`,
    params,
    ...(body === undefined
      ? {}
      : {
          body: { string: JSON.stringify(body) },
          headers: { 'content-type': 'application/json' },
        }),
  });
  return route.handler(request, new InvocationContext({ functionName: name }));
}

describe('a connector kind registered through the kind registry', () => {
  it('has its settings validated by its own schema, naming the connector and the setting', () => {
    const refuse = () =>
      loadConfig(
        {
          PROVISIONING_CONNECTORS: JSON.stringify([
            { name: 'mem-bad', kind: 'memory', groups: [], concurrency: 0 },
          ]),
        },
        connectorSettingsKinds(),
      );
    expect(refuse).toThrow(ProvisioningError);
    expect(refuse).toThrow('connector "mem-bad": setting "groups": must name at least one group');
    expect(refuse).toThrow('connector "mem-bad": setting "concurrency"');
  });

  it('is listed with what it can do', async () => {
    const listed = await call('listConnectors', {});
    expect(listed.jsonBody).toEqual({
      connectors: [
        {
          name: 'mem',
          kind: 'memory',
          catalogueJobType: 'Import memory groups',
          capabilities: {
            visibilityWindowMs: 0,
            membershipReadScope: 'all',
            membershipWriteBatchSize: 1,
            membershipWritesSayIfInPlace: false,
          },
          features: { compatibilityRun: false, groupStructure: false, inheritedMemberships: false },
          quarantine: { state: 'active', heldRequests: 0 },
        },
      ],
    });
  });

  it('answers the status check, runs its catalogue import job under its own job type, and lists the roles', async () => {
    const status = await call('connectorStatus', { name: 'mem' });
    expect(status).toMatchObject({
      status: 200,
      jsonBody: { connector: 'mem', kind: 'memory', ok: true },
    });

    const started = await call('startImport', { name: 'mem' });
    expect(started.status).toBe(202);
    const { jobId } = started.jsonBody as { jobId: string };
    await runtime.driver.waitFor(jobInstanceId(jobId), 10_000);
    const job = await call('getJob', { id: jobId });
    expect(job.jsonBody).toMatchObject({
      type: 'Import memory groups',
      status: 'succeeded',
      result: { groups: 2, added: 2 },
    });
    const roles = await call('listRoles', { name: 'mem' });
    expect(
      (roles.jsonBody as { roles: { displayName: string }[] }).roles.map((r) => r.displayName),
    ).toEqual(['Memory One', 'Memory Two']);
    const search = await call('searchGroups', { name: 'mem' }, '?search=Two');
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.jsonBody)).toContain('Memory Two');
  });

  it('provisions an account through the same request path as SCIM and Graph', async () => {
    const submitted = await call('submitRequest', {}, '', {
      connector: 'mem',
      account: { accountId: 'kim.lee', displayName: 'Kim Lee' },
      actions: [
        { type: 'create' },
        { type: 'grant', groups: ['Memory One', 'Memory Two'] },
        { type: 'revoke', groups: ['Memory Two'] },
        { type: 'lock' },
      ],
    });
    expect(submitted.status).toBe(202);
    const { requestId } = submitted.jsonBody as { requestId: string };
    await runtime.driver.waitFor(requestInstanceId(requestId), 20_000);

    // The target's truth: the account exists, locked, a member of exactly Memory One.
    const target = memoryTarget('mem');
    expect(target.byAccountId('kim.lee')).toMatchObject({ displayName: 'Kim Lee', enabled: false });
    expect(target.groupNamesOf('kim.lee')).toEqual(['Memory One']);

    const report = await call('getRequest', { id: requestId });
    expect(report.jsonBody).toMatchObject({
      status: 'succeeded',
      steps: [
        { action: 'create', state: 'succeeded' },
        { action: 'grant', state: 'succeeded' },
        { action: 'revoke', state: 'succeeded' },
        { action: 'lock', state: 'succeeded' },
      ],
    });
    const journal = await call('journal', {}, '?connector=mem&accountId=kim.lee');
    const changes = (
      journal.jsonBody as { entries: { change: string; groupName?: string }[] }
    ).entries
      .map((e) => `${e.change}${e.groupName === undefined ? '' : ` ${e.groupName}`}`)
      .sort();
    expect(changes).toEqual([
      'account created',
      'account locked',
      'member added Memory One',
      'member added Memory Two',
      'member removed Memory Two',
    ]);
  });

  it('refuses a compatibility run the kind does not have, naming the connector', async () => {
    const answer = await call('startCompatibilityRun', { name: 'mem' });
    expect(answer).toMatchObject({
      status: 400,
      jsonBody: { error: { code: 'OPERATION_NOT_SUPPORTED', object: 'mem' } },
    });
  });
});
