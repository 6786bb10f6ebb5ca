import { HttpRequest, InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { importTimerHandler } from '../../../src/api/import-timer';
import { getJobHandler, startImportHandler } from '../../../src/api/jobs-api';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';

function setUp(running?: { jobId: string; runtimeStatus: string }) {
  const started: unknown[] = [];
  const claims: unknown[] = [];
  const holder = running && {
    jobId: running.jobId,
    since: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
  };
  const deps: Parameters<typeof startImportHandler>[0] = {
    services: async () =>
      ({
        registry: {
          settings: (name: string) => (name === 'hr' ? { name, kind: 'scim' } : undefined),
        },
        catalogue: {
          // The lease store: held by `running` unless the claim replaces it.
          claimImport: async (_connector: string, claim: { replacing?: string }) => {
            claims.push(claim);
            return holder === undefined || claim.replacing === holder.jobId
              ? { held: true }
              : { held: false, holder };
          },
        },
      }) as unknown as WorkflowServices,
    orchestrations: () => ({
      startNew: async (_name, _id, input) => {
        started.push(input);
        return 'started';
      },
      getStatus: async (id: string) =>
        running !== undefined && id === `job-${running.jobId}`
          ? ({ runtimeStatus: running.runtimeStatus } as never)
          : undefined,
    }),
    now: () => new Date(),
  };
  const handler = startImportHandler(deps);
  // No content-length header: as a chunked request arrives.
  const post = (body?: string) =>
    handler(
      new HttpRequest({
        method: 'POST',
        url: 'http://127.0.0.1/api/connectors/hr/imports',
        params: { name: 'hr' },
        ...(body === undefined ? {} : { body: { string: body } }),
      }),
      new InvocationContext(),
    );
  return { started, claims, post, deps };
}

describe('POST /api/connectors/{name}/imports', () => {
  it('reads the options from a body sent without content-length', async () => {
    const { started, post } = setUp();
    expect((await post('{"overwriteExisting": true}')).status).toBe(202);
    expect(started).toEqual([
      expect.objectContaining({ type: 'Import SCIM groups', overwriteExisting: true }),
    ]);
  });

  it('takes no body as the defaults, and refuses unknown options', async () => {
    const { started, post } = setUp();
    expect((await post()).status).toBe(202);
    expect(started).toEqual([
      expect.objectContaining({ overwriteExisting: false, incremental: false }),
    ]);
    const refused = await post('{"overwrite": true}');
    expect(refused.status).toBe(400);
    expect(started).toHaveLength(1);
  });
});

describe('one import per connector', () => {
  const runningJobId = '0b7d2f7e-8a51-4a53-9a0e-2c6f0f6b1d11';

  it('answers 409 naming the connector and the running job, and starts nothing', async () => {
    const { started, post, deps } = setUp({ jobId: runningJobId, runtimeStatus: 'Running' });
    const refused = await post();
    expect(refused.status).toBe(409);
    expect(refused.jsonBody).toMatchObject({
      error: {
        code: 'IMPORT_ALREADY_RUNNING',
        object: 'hr',
        runningJobId,
        statusUrl: `http://127.0.0.1/api/jobs/${runningJobId}`,
      },
    });
    expect(refused.jsonBody).toMatchObject({
      error: { message: expect.stringContaining('connector "hr"') as unknown },
    });
    expect(refused.headers).toMatchObject({
      location: `http://127.0.0.1/api/jobs/${runningJobId}`,
    });
    expect(await importTimerHandler(deps, 'hr')({}, new InvocationContext())).toBeUndefined();
    expect(started).toEqual([]);
  });

  it('takes over the lease of a job Durable reports ended', async () => {
    const { started, claims, post } = setUp({ jobId: runningJobId, runtimeStatus: 'Failed' });
    expect((await post()).status).toBe(202);
    expect(claims).toEqual([
      expect.not.objectContaining({ replacing: expect.anything() }),
      expect.objectContaining({ replacing: runningJobId }),
    ]);
    expect(started).toHaveLength(1);
  });
});

describe('incremental imports', () => {
  it('are asked for with "incremental": true, and are what the import schedule starts', async () => {
    const { started, post, deps } = setUp();
    expect((await post('{"incremental": true}')).status).toBe(202);
    expect((await post('{"incremental": "yes"}')).status).toBe(400);
    await importTimerHandler(deps, 'hr')({}, new InvocationContext());
    expect(started).toEqual([
      expect.objectContaining({ incremental: true, trigger: 'api' }),
      expect.objectContaining({ incremental: true, trigger: 'schedule' }),
    ]);
  });
});

describe('GET /api/jobs/{id}', () => {
  const jobId = '6f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
  const progress = { mode: 'full', groupsRead: 1500, groupsApplied: 1000, at: 'then' };
  function get(name: string, report: Record<string, unknown>) {
    const handler = getJobHandler({
      services: async () =>
        ({
          catalogue: {
            importProgress: async (id: string) => (id === jobId ? progress : undefined),
          },
        }) as unknown as WorkflowServices,
      orchestrations: () => ({
        startNew: async () => 'started',
        getStatus: async () => ({
          instanceId: `job-${jobId}`,
          name,
          runtimeStatus: report.status === 'running' ? 'Running' : 'Completed',
          input: { jobId, type: 'Import Directory Groups', connector: 'entra', trigger: 'api' },
          output: report.status === 'running' ? undefined : report,
          customStatus: report,
          createdTime: 'then',
          lastUpdatedTime: 'then',
        }),
      }),
      now: () => new Date(),
    });
    return handler(
      new HttpRequest({
        method: 'GET',
        url: `http://127.0.0.1/api/jobs/${jobId}`,
        params: { id: jobId },
      }),
      new InvocationContext(),
    );
  }

  it('shows how far a running import got, and nothing of the kind once it is done or for other jobs', async () => {
    const running = await get('catalogueImport', { jobId, status: 'running' });
    expect(running.jsonBody).toMatchObject({ status: 'running', progress });
    const done = await get('catalogueImport', { jobId, status: 'succeeded', result: {} });
    expect(done.jsonBody).not.toHaveProperty('progress');
    const compat = await get('compatibilityRun', { jobId, status: 'running' });
    expect(compat.jsonBody).not.toHaveProperty('progress');
  });
});
