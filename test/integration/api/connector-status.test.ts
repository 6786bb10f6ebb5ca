import { HttpRequest, InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/app-config';
import { scimConnectorSchema } from '../../../src/connectors/scim/scim-settings';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { connectorStatusHandler } from '../../../src/api/connector-status';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { ConnectorRegistry } from '../../../src/connectors/connector-registry';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { startScimSandbox, type ScimSandbox } from '../../../src/sandbox/scim';
import { tableClient } from '../../../src/store/storage-clients';
import { TableCompatibilityRuns } from '../../../src/store/table-compatibility-runs';
import { TableConnectorStates } from '../../../src/store/table-connector-states';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { NO_QUARANTINE } from '../../support/no-quarantine';
import { expectNoSecrets } from '../../support/no-secrets';

const TOKEN = 'status-token-5a1e9c';
let sandbox: ScimSandbox;
let registry: ConnectorRegistry;
let storage: TestStorage;
let compatibility: TableCompatibilityRuns;
let connectorStates: TableConnectorStates;
const logged: string[] = [];
const NOW = new Date('2026-11-23T10:00:00.000Z');

beforeAll(async () => {
  sandbox = await startScimSandbox({ auth: { type: 'bearer', token: TOKEN } });
  storage = await startTestStorage();
  compatibility = new TableCompatibilityRuns(tableClient(storage.connection, 'CompatibilityRuns'));
  connectorStates = new TableConnectorStates(tableClient(storage.connection, 'ConnectorStates'));
  const settings = (name: string, tokenSecret: string) =>
    scimConnectorSchema.parse({
      name,
      kind: 'scim',
      baseUrl: sandbox.baseUrl,
      auth: { type: 'bearer', tokenSecret },
    });
  registry = new ConnectorRegistry(
    {
      ...loadConfig({}, connectorSettingsKinds()),
      connectors: [settings('hr', 'hr-token'), settings('hr-wrong', 'wrong-token')],
    },
    new LocalSecretStore({ 'hr-token': TOKEN, 'wrong-token': 'not-the-token-77' }),
  );
});
afterAll(async () => {
  await registry.close();
  await sandbox.close();
  await storage.close();
});

async function call(name: string) {
  const request = new HttpRequest({
    method: 'POST',
    url: `http://127.0.0.1:7071/api/connectors/${name}/status`,
    params: { name },
  });
  const context = new InvocationContext({
    functionName: 'connectorStatus',
    logHandler: (_level, ...args) => logged.push(args.join(' ')),
  });
  return connectorStatusHandler({
    services: () =>
      Promise.resolve({
        registry,
        compatibility,
        connectorStates,
        quarantine: NO_QUARANTINE,
      } as unknown as WorkflowServices),
    now: () => NOW,
  })(request, context);
}

describe('POST /api/connectors/{name}/status', () => {
  it('runs the status check and answers with its findings', async () => {
    const response = await call('hr');
    expect(response.status).toBe(200);
    expect(response.jsonBody).toMatchObject({ connector: 'hr', kind: 'scim', ok: true });
    expect(response.jsonBody).toHaveProperty('lastCompatibilityRun', null);
  });

  it('shows the date and verdict of the last compatibility run', async () => {
    await compatibility.keep({
      connector: 'hr',
      at: '2026-11-20T09:30:00.000Z',
      jobId: 'job-7',
      verdict: 'fits with the suggested settings',
      summary: 'the server fits with memberValue: scimId (5 of 6 points fit as configured)',
      points: [],
      suggestedSettings: [],
      actions: [],
      judgedSettings: {},
    });
    const response = await call('hr');
    expect(response.jsonBody).toMatchObject({
      ok: true,
      lastCompatibilityRun: {
        at: '2026-11-20T09:30:00.000Z',
        verdict: 'fits with the suggested settings',
        summary: 'the server fits with memberValue: scimId (5 of 6 points fit as configured)',
        jobId: 'job-7',
      },
    });
  });

  it('reports refused credentials as a failed check without the secret', async () => {
    const response = await call('hr-wrong');
    expect(response.status).toBe(200);
    expect(response.jsonBody).toMatchObject({
      ok: false,
      summary: expect.stringContaining('refused'),
    });
    expectNoSecrets(JSON.stringify(response.jsonBody) + logged.join(), {
      'refused token': 'not-the-token-77',
    });
  });

  it("keeps each connector's last check for the health report, without the secret", async () => {
    await call('hr');
    await call('hr-wrong');
    const states = await connectorStates.read(['hr', 'hr-wrong', 'never-checked']);
    expect(states.get('hr')?.lastStatusCheck).toMatchObject({ at: NOW.toISOString(), ok: true });
    expect(states.get('hr-wrong')?.lastStatusCheck).toMatchObject({
      ok: false,
      summary: expect.stringContaining('refused'),
    });
    expect(states.get('never-checked')).toEqual({});
    expectNoSecrets([...states], { 'refused token': 'not-the-token-77' }, 'the states');
  });

  it('answers 404 for an unknown connector', async () => {
    const response = await call('nope');
    expect(response.status).toBe(404);
    expect(response.jsonBody).toMatchObject({ error: { message: 'unknown connector "nope"' } });
  });
});
