import { describe, expect, it } from 'vitest';
import type { CompatibilityReport } from '../../../src/connectors/scim/compatibility-report';
import { ORCHESTRATIONS, jobInstanceId } from '../../../src/workflows/names';
import type { JobInput, JobReport } from '../../../src/workflows/orchestrators/job-orchestrators';
import { activityCalls, GRAPH, SCIM, useServiceBench } from '../../support/service-bench';

/** The catalogue import and compatibility run jobs, on the production activities and sandboxes. */
const bench = useServiceBench();

async function runJob(name: string, input: JobInput): Promise<JobReport> {
  const instanceId = jobInstanceId(input.jobId);
  expect(await bench.runtime.driver.startNew(name, instanceId, input)).toBe('started');
  const state = await bench.runtime.driver.waitFor(instanceId, 20_000);
  expect(state.runtimeStatus).toBe('Completed');
  await bench.runtime.driver.verifyReplay(instanceId);
  return state.output as JobReport;
}

const importJob = (jobId: string, connector: string, overwriteExisting?: boolean): JobInput => ({
  jobId,
  type: connector === SCIM ? 'Import SCIM groups' : 'Import Directory Groups',
  connector,
  trigger: 'api',
  ...(overwriteExisting === undefined ? {} : { overwriteExisting }),
});

/** Renames a group through the SCIM sandbox's own API, as an administrator of the server would. */
async function renameScimGroup(id: string, displayName: string): Promise<void> {
  const answer = await fetch(`${bench.sandboxes.scim.endpoint}/Groups/${id}`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${bench.sandboxes.secrets['scim-sandbox-token']}`,
      'content-type': 'application/scim+json',
    },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: displayName }],
    }),
  });
  expect(answer.status).toBe(200);
}

describe('catalogue import job', () => {
  it('imports the SCIM groups into the catalogue and reports the summary', async () => {
    const report = await runJob(ORCHESTRATIONS.catalogueImport, importJob('import-scim', SCIM));

    expect(report).toMatchObject({
      jobId: 'import-scim',
      type: 'Import SCIM groups',
      connector: SCIM,
      status: 'succeeded',
      trigger: 'api',
      result: { groups: 6, added: 6, unchanged: 0, markedGone: 0 },
    });
    const roles = await bench.runtime.services.catalogue.list(SCIM);
    expect(roles.map((role) => [role.groupId, role.displayName, role.writable]).sort()).toEqual(
      Object.entries(bench.sandboxes.scimGroups)
        .map(([name, id]) => [id, name, true])
        .sort(),
    );
  });

  it('imports the Graph groups, the dynamic one as not writable, saying why', async () => {
    const report = await runJob(ORCHESTRATIONS.catalogueImport, importJob('import-graph', GRAPH));

    expect(report.status).toBe('succeeded');
    expect(report.result).toMatchObject({ groups: 7, added: 7 });
    const roles = await bench.runtime.services.catalogue.list(GRAPH);
    const { graphGroups, graphDynamicGroup } = bench.sandboxes;
    expect(roles.map((role) => role.groupId).sort()).toEqual(
      [...Object.values(graphGroups), graphDynamicGroup].sort(),
    );
    const dynamic = roles.find((role) => role.groupId === graphDynamicGroup);
    expect(dynamic).toMatchObject({ displayName: 'All Staff (dynamic)', writable: false });
    expect(dynamic?.notWritableReason).toContain('dynamic membership');
    expect(
      roles.filter((role) => role.groupId !== graphDynamicGroup).map((r) => r.writable),
    ).toEqual(Object.values(graphGroups).map(() => true));
  });

  it('keeps the role name of a group renamed on the target unless "Overwrite existing roles" is on', async () => {
    const [payroll] = bench.sandboxes.scim.seedGroups([{ displayName: 'Payroll' }]);
    const first = await runJob(ORCHESTRATIONS.catalogueImport, importJob('import-rename-1', SCIM));
    expect(first.result).toMatchObject({ added: 1 });
    await renameScimGroup(payroll!.id, 'Payroll EMEA');
    expect(bench.sandboxes.scim.getGroup(payroll!.id)?.displayName).toBe('Payroll EMEA');

    const kept = await runJob(ORCHESTRATIONS.catalogueImport, importJob('import-rename-2', SCIM));

    expect(kept).toMatchObject({ status: 'succeeded', result: { renameSkipped: 1, renamed: 0 } });
    expect(kept).not.toHaveProperty('overwriteExisting');
    expect(activityCalls(bench, jobInstanceId('import-rename-2'))[0]?.input).toMatchObject({
      overwriteExisting: false,
    });
    expect(await bench.runtime.services.catalogue.get(SCIM, payroll!.id)).toMatchObject({
      displayName: 'Payroll',
      targetName: 'Payroll EMEA',
    });

    const renamed = await runJob(
      ORCHESTRATIONS.catalogueImport,
      importJob('import-rename-3', SCIM, true),
    );

    expect(renamed).toMatchObject({ overwriteExisting: true, result: { renamed: 1 } });
    expect(await bench.runtime.services.catalogue.get(SCIM, payroll!.id)).toMatchObject({
      displayName: 'Payroll EMEA',
      targetName: 'Payroll EMEA',
    });
  });

  it('fails for a connector that is not configured, naming it', async () => {
    const report = await runJob(ORCHESTRATIONS.catalogueImport, importJob('import-ghost', 'ghost'));

    expect(report.status).toBe('failed');
    expect(report.error?.code).toBe('CONNECTOR_NOT_FOUND');
    expect(report.error?.message).toContain('ghost');
    expect(report.result).toBeUndefined();
  });
});

describe('compatibility run job', () => {
  it('reports the six points of the SCIM sandbox and removes its test account', async () => {
    const report = await runJob(ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-scim',
      type: 'Compatibility run',
      connector: SCIM,
      trigger: 'api',
    });

    expect(report.status).toBe('succeeded');
    const run = report.result as CompatibilityReport;
    expect(run.points.map((point) => [point.number, point.outcome])).toEqual([
      [1, 'fits'],
      [2, 'fits'],
      [3, 'fits'],
      [4, 'fits'],
      [5, 'fits'],
      [6, 'fits'],
    ]);
    expect(run.fits).toBe(true);
    // The test account was really created on the server, and is gone again.
    const changes = bench.sandboxes.scim
      .truthLog()
      .filter((event) => event.accountId === run.testAccount)
      .map((event) => event.change);
    expect(changes).toContain('account created');
    expect(changes.at(-1)).toBe('account deleted');
    expect(bench.sandboxes.scim.getUser(run.testAccount)).toBeUndefined();
    // Every change the run made on the server is in the journal, once, under the job: the
    // test account's membership of a group of the catalogue too.
    const truth = bench.sandboxes.scim
      .truthLog()
      .filter((event) => event.accountId === run.testAccount)
      .map((event) => `${event.change} ${event.groupId ?? ''}`.trim());
    expect(truth).toContain(`member added ${run.group?.id}`);
    const journal = await bench.journal(SCIM, run.testAccount);
    expect(journal.map((entry) => `${entry.change} ${entry.groupId ?? ''}`.trim()).sort()).toEqual(
      [...truth].sort(),
    );
    expect(journal.every((entry) => entry.requestId === 'compat-scim')).toBe(true);
    expect(journal[0]).toMatchObject({ requestedBy: 'compatibility run' });
    expect(run.changes?.length).toBe(journal.length);
    const status = await bench.runtime.driver.getStatus(jobInstanceId('compat-scim'));
    expect(status?.customStatus).toMatchObject({ status: 'succeeded' });
    expect(status?.customStatus).not.toHaveProperty('result');
    // Kept as the connector's last run, with the job that ran it.
    expect(await bench.runtime.services.compatibility.last(SCIM)).toEqual(run);
    expect(run.jobId).toBe('compat-scim');
  });

  it('grants and revokes the group the job names, and its run replaces the one before', async () => {
    const report = await runJob(ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-scim-named',
      type: 'Compatibility run',
      connector: SCIM,
      groupName: 'Finance',
      trigger: 'api',
    });

    const run = report.result as CompatibilityReport;
    expect(report).toMatchObject({ status: 'succeeded', groupName: 'Finance' });
    expect(run.group).toEqual({
      id: bench.sandboxes.scimGroups.Finance,
      displayName: 'Finance',
      temporary: false,
    });
    const kept = await bench.runtime.services.compatibility.last(SCIM);
    expect(kept).toMatchObject({ jobId: 'compat-scim-named', at: run.at });
  });

  it('fails on the Graph connector, saying it is for SCIM servers', async () => {
    const requests = bench.sandboxes.graph.requests.length;

    const report = await runJob(ORCHESTRATIONS.compatibilityRun, {
      jobId: 'compat-graph',
      type: 'Compatibility run',
      connector: GRAPH,
      trigger: 'api',
    });

    expect(report.status).toBe('failed');
    expect(report.error?.code).toBe('OPERATION_NOT_SUPPORTED');
    expect(report.error?.message).toContain('has no compatibility run: it is for SCIM servers');
    expect(bench.sandboxes.graph.requests.length).toBe(requests);
  });
});
