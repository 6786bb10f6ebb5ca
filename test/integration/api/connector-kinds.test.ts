import { HttpRequest, InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/api-deps';
import { apiRoutes } from '../../../src/api/routes';
import { loadConfig } from '../../../src/config/app-config';
import type { ConnectorSettings } from '../../../src/config/connector-settings';
import type { Connector } from '../../../src/connectors/connector';
import { registerConnectorKind } from '../../../src/connectors/connector-kinds';
import { ProvisioningError } from '../../../src/domain/errors';
import { silentLogger } from '../../../src/domain/logger';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { startServiceRuntime, type ServiceRuntime } from '../../../src/runtime/service-runtime';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';

/**
 * A third connector kind, registered the way the built-in ones are (a descriptor and one
 * registry line), is served by the same API: nothing in the API, the jobs or the activities
 * knows the kinds by name.
 */
const GROUPS = [
  { id: 'm-1', displayName: 'Memory One', writable: true },
  { id: 'm-2', displayName: 'Memory Two', writable: true },
];

function memoryConnector(name: string): Connector {
  const unsupported = async (): Promise<never> => {
    throw new ProvisioningError('OPERATION_NOT_SUPPORTED', `connector "${name}" keeps no accounts`);
  };
  return {
    name,
    kind: 'memory',
    capabilities: {
      visibilityWindowMs: 0,
      membershipReadScope: 'named',
      membershipWriteBatchSize: 1,
    },
    checkStatus: async () => ({
      connector: name,
      kind: 'memory',
      ok: true,
      summary: 'in memory',
      findings: [{ name: 'memory', outcome: 'ok', detail: 'always there' }],
    }),
    async *listAccounts() {},
    findAccount: async () => undefined,
    readAccount: async () => undefined,
    createAccount: unsupported,
    updateAccount: unsupported,
    setPassword: unsupported,
    setEnabled: unsupported,
    deleteAccount: unsupported,
    async *importGroups() {
      yield* GROUPS;
    },
    findGroup: async (displayName) => GROUPS.find((g) => g.displayName === displayName),
    searchGroups: async (text) => GROUPS.filter((g) => g.displayName.includes(text)),
    readMemberships: unsupported,
    writeMemberships: unsupported,
    readLastLogon: unsupported,
    close: async () => undefined,
  };
}

let runtime: ServiceRuntime;
let routes: ReturnType<typeof apiRoutes>;

beforeAll(async () => {
  registerConnectorKind({
    kind: 'memory',
    catalogueJobType: 'Import memory groups',
    create: (settings) => memoryConnector(settings.name),
  });
  const settings = {
    name: 'mem',
    kind: 'memory',
    importOverwriteExisting: false,
  } as unknown as ConnectorSettings;
  runtime = await startServiceRuntime({
    config: { ...loadConfig({}), connectors: [settings] },
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
});

async function call(name: string, params: Record<string, string>, query = '') {
  const route = routes.find((r) => r.name === name)!;
  const request = new HttpRequest({
    method: route.method,
    url: `http://127.0.0.1/api/${route.route}${query}`,
    params,
  });
  return route.handler(request, new InvocationContext({ functionName: name }));
}

describe('a connector kind registered through the kind registry', () => {
  it('answers the status check, runs its catalogue import job under its own job type, and lists the roles', async () => {
    const status = await call('connectorStatus', { name: 'mem' });
    expect(status).toMatchObject({
      status: 200,
      jsonBody: { connector: 'mem', kind: 'memory', ok: true },
    });

    const started = await call('startImport', { name: 'mem' });
    expect(started.status).toBe(202);
    const { jobId } = started.jsonBody as { jobId: string };
    await runtime.driver.waitFor(`job-${jobId}`, 10_000);
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

  it('refuses a compatibility run the kind does not have, naming the connector', async () => {
    const answer = await call('startCompatibilityRun', { name: 'mem' });
    expect(answer).toMatchObject({
      status: 400,
      jsonBody: { error: { code: 'OPERATION_NOT_SUPPORTED', object: 'mem' } },
    });
  });
});
