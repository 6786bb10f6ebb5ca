import { describe, expect, it } from 'vitest';
import { ACTIVITIES, ORCHESTRATIONS, jobInstanceId } from '../../../src/workflows/names';
import type { JobInput, JobReport } from '../../../src/workflows/orchestrators/job-orchestrators';
import { OPS, SALES, START, WAIT_MS, useWorkbench, type Workbench } from './workflow-test-kit';

const workbench = useWorkbench();

async function runJob(bench: Workbench, name: string, input: JobInput): Promise<JobReport> {
  const instanceId = jobInstanceId(input.jobId);
  await bench.driver.startNew(name, instanceId, input);
  const state = await bench.driver.waitFor(instanceId, WAIT_MS);
  expect(state.runtimeStatus).toBe('Completed');
  await expect(bench.driver.verifyReplay(instanceId)).resolves.toBeUndefined();
  return state.output as JobReport;
}

describe('catalogue import job', () => {
  it('reports the import summary and adds the new groups to the catalogue', async () => {
    const bench = workbench({ groups: [SALES, OPS], catalogue: [SALES] });

    const report = await runJob(bench, ORCHESTRATIONS.catalogueImport, {
      jobId: 'import-1',
      type: 'Import Directory Groups',
      connector: 'hr',
      overwriteExisting: true,
      trigger: 'api',
    });

    expect(report).toMatchObject({
      jobId: 'import-1',
      type: 'Import Directory Groups',
      connector: 'hr',
      status: 'succeeded',
      overwriteExisting: true,
      trigger: 'api',
      startedAt: new Date(START).toISOString(),
      result: { groups: 2, added: 1, unchanged: 1, markedGone: 0 },
    });
    expect(report.error).toBeUndefined();
    expect(report.finishedAt).toBeDefined();
    expect(bench.target.callsOf(ACTIVITIES.importCatalogue)[0]?.input).toMatchObject({
      connector: 'hr',
      jobId: 'import-1',
      overwriteExisting: true,
    });
    expect(bench.target.catalogue.map((role) => role.id)).toEqual([SALES.id, OPS.id]);
  });

  it('passes "Overwrite existing roles" off when the job does not set it', async () => {
    const bench = workbench({
      groups: [{ id: SALES.id, displayName: 'Sales EMEA' }],
      catalogue: [SALES],
    });

    const report = await runJob(bench, ORCHESTRATIONS.catalogueImport, {
      jobId: 'import-2',
      type: 'Import SCIM groups',
      connector: 'hr',
      trigger: 'schedule',
    });

    expect(report.status).toBe('succeeded');
    expect(report.result).toMatchObject({ renameSkipped: 1, renamed: 0 });
    expect(bench.target.callsOf(ACTIVITIES.importCatalogue)[0]?.input).toMatchObject({
      overwriteExisting: false,
    });
    expect(bench.target.catalogue[0]?.displayName).toBe('Sales');
  });

  it('reports a failed import with its error', async () => {
    const bench = workbench();

    const report = await runJob(bench, ORCHESTRATIONS.catalogueImport, {
      jobId: 'import-3',
      type: 'Import SCIM groups',
      connector: 'missing',
      trigger: 'api',
    });

    expect(report.status).toBe('failed');
    expect(report.error?.code).toBe('CONNECTOR_NOT_FOUND');
    expect(report.result).toBeUndefined();
  });
});

describe('compatibility run job', () => {
  it('reports the run of a SCIM connector', async () => {
    const bench = workbench({ kind: 'scim' });

    const report = await runJob(bench, ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-1',
      type: 'Compatibility run',
      connector: 'hr',
      trigger: 'api',
    });

    expect(report).toMatchObject({
      type: 'Compatibility run',
      status: 'succeeded',
      result: { connector: 'hr', fits: true, cleanup: 'test account deleted' },
    });
  });

  it('fails for a connector that is not SCIM, saying why', async () => {
    const bench = workbench({ kind: 'graph' });

    const report = await runJob(bench, ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-2',
      type: 'Compatibility run',
      connector: 'hr',
      trigger: 'api',
    });

    expect(report.status).toBe('failed');
    expect(report.error?.code).toBe('OPERATION_NOT_SUPPORTED');
  });

  it('publishes the report without the result as custom status', async () => {
    const bench = workbench({ kind: 'scim' });
    const running: unknown[] = [];
    bench.target.hooks.runCompatibility = async () => {
      running.push((await bench.driver.getStatus(jobInstanceId('compat-3')))?.customStatus);
    };

    await runJob(bench, ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-3',
      type: 'Compatibility run',
      connector: 'hr',
      trigger: 'api',
    });

    expect(running).toEqual([expect.objectContaining({ status: 'running', jobId: 'compat-3' })]);
    const done = (await bench.driver.getStatus(jobInstanceId('compat-3')))?.customStatus;
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(done).not.toHaveProperty('result');
  });
});
