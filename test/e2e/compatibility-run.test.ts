import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

/** Starts the compatibility run through the API and answers the finished job. */
async function compatibilityRun(body?: unknown): Promise<any> {
  const started = await t.api('POST', '/api/connectors/scim-sandbox/compatibility-run', body);
  expect(started.status).toBe(202);
  return until('the compatibility run to finish', async () => {
    const job = await t.api('GET', `/api/jobs/${started.body.jobId}`);
    return job.body.status === 'running' ? undefined : job.body;
  });
}

describe('the compatibility run through the API: kept, shown, and read against', () => {
  it('has no last run before the first, and none at all for Graph', async () => {
    const none = await t.api('GET', '/api/connectors/scim-sandbox/compatibility-run');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('NOT_FOUND');
    const status = await t.api('POST', '/api/connectors/scim-sandbox/status');
    expect(status.body.lastCompatibilityRun).toBeNull();
    const graph = await t.api('POST', '/api/connectors/graph-sandbox/status');
    expect(graph.body).not.toHaveProperty('lastCompatibilityRun');
    expect((await t.api('GET', '/api/connectors/graph-sandbox/compatibility-run')).status).toBe(
      400,
    );
    const wrong = await t.api('POST', '/api/connectors/scim-sandbox/compatibility-run', {
      group: 'Sales',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('REQUEST_INVALID');
    const openapi = (await t.api('GET', '/api/openapi.json')).body;
    expect(openapi.paths['/connectors/{name}/compatibility-run'].get).toBeDefined();
    expect(openapi.components.schemas.CompatibilityResult.properties.actions).toBeDefined();
  });

  it('names the run when a request fails on an action it found unsupported, and the status check shows it', async () => {
    const { scim } = t.host.sandboxes!;
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', passwordNotPatchable: true });
    try {
      const job = await compatibilityRun({ groupName: 'Sales' });
      expect(job).toMatchObject({ status: 'succeeded', groupName: 'Sales' });
      expect(job.result.group).toMatchObject({ displayName: 'Sales', temporary: false });
      expect(job.result.points[4]).toMatchObject({ number: 5, outcome: 'does not fit' });
      expect(job.result.actions).toContainEqual(
        expect.objectContaining({ action: 'setPassword', outcome: 'will fail', point: 5 }),
      );
      const kept = await t.api('GET', '/api/connectors/scim-sandbox/compatibility-run');
      expect(kept.body).toEqual(job.result);

      const status = await t.api('POST', '/api/connectors/scim-sandbox/status');
      expect(status.body.lastCompatibilityRun).toEqual({
        at: job.result.at,
        verdict: 'does not fit',
        summary: job.result.summary,
        jobId: job.jobId,
      });

      const submitted = await t.api('POST', '/api/requests', {
        connector: 'scim-sandbox',
        account: { accountId: 'pat.password', displayName: 'Pat Password' },
        password: 'Another-Passw0rd!',
        actions: [{ type: 'create' }, { type: 'setPassword' }],
      });
      const request = await t.finished(submitted.body.requestId);
      const failed = request.steps[1];
      expect(request.status).toBe('failed');
      // Refused before anything is sent: the server declares changePassword: false.
      expect(failed.error.code).toBe('OPERATION_NOT_SUPPORTED');
      expect(failed.error.message).toMatch(
        new RegExp(
          `^setPassword is not supported by this server: compatibility run of ${job.result.at.replace(/\./g, '\\.')}, point 5 .*The server's answer: .*changePassword: false`,
        ),
      );
      expect(failed.error.details.compatibilityRun).toMatchObject({
        jobId: job.jobId,
        action: 'setPassword',
        outcome: 'will fail',
        point: 5,
      });
      // The target's truth: the account exists, its password was never set.
      expect(scim.getUser('pat.password')).toBeDefined();
      expect(scim.hasPassword('pat.password')).toBe(false);
      expect(JSON.stringify(request)).not.toContain('Another-Passw0rd!');
    } finally {
      scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    }
  });

  it('a new run replaces the last one', async () => {
    const job = await compatibilityRun();
    expect(job.result.verdict).toBe('fits');
    const kept = await t.api('GET', '/api/connectors/scim-sandbox/compatibility-run');
    expect(kept.body).toMatchObject({ jobId: job.jobId, verdict: 'fits' });
    const status = await t.api('POST', '/api/connectors/scim-sandbox/status');
    expect(status.body.lastCompatibilityRun).toMatchObject({ jobId: job.jobId, verdict: 'fits' });
  });
});
