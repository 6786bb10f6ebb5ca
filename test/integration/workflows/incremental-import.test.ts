import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueRole } from '../../../src/domain/catalogue-import';
import type { ImportSummary } from '../../../src/workflows/activities/service-activities';
import { ORCHESTRATIONS, jobInstanceId } from '../../../src/workflows/names';
import type { JobInput, JobReport } from '../../../src/workflows/orchestrators/job-orchestrators';
import { GRAPH, SCIM, startServiceBench, type ServiceBench } from '../../support/service-bench';

/** Incremental catalogue imports (issue 14, part 3), judged by the catalogue and the sandbox's request log. */
let bench: ServiceBench;
beforeAll(async () => {
  bench = await startServiceBench();
});
afterAll(async () => {
  await bench?.close();
});

let jobs = 0;
async function importJob(
  connector: string,
  options: { incremental: boolean; overwriteExisting?: boolean },
): Promise<JobReport & { result: ImportSummary }> {
  jobs += 1;
  const input: JobInput = {
    jobId: `incremental-${jobs}`,
    type: connector === SCIM ? 'Import SCIM groups' : 'Import Directory Groups',
    connector,
    trigger: 'api',
    ...options,
  };
  const instanceId = jobInstanceId(input.jobId);
  expect(
    await bench.runtime.driver.startNew(ORCHESTRATIONS.catalogueImport, instanceId, input),
  ).toBe('started');
  const state = await bench.runtime.driver.waitFor(instanceId, 120_000);
  const report = state.output as JobReport & { result: ImportSummary };
  expect(report.status, JSON.stringify(report.error)).toBe('succeeded');
  return report;
}

/** The Graph calls since the last clearRequests(), by what they did. */
function graphCalls() {
  const requests = bench.sandboxes.graph.requests.filter((request) => request.viaBatch !== true);
  return {
    all: requests.length,
    deltaPages: requests.filter((request) => request.path === '/v1.0/groups/delta').length,
    fullPages: requests.filter((request) => request.path === '/v1.0/groups').length,
  };
}

async function rolesById(): Promise<Map<string, CatalogueRole>> {
  const roles = await bench.runtime.services.catalogue.list(GRAPH, { includeGone: true });
  return new Map(roles.map((role) => [role.groupId, role]));
}

describe('incremental catalogue import on Graph (groups/delta)', () => {
  it('imports in full the first time, saying why, and keeps the delta link', async () => {
    bench.sandboxes.graph.clearRequests();

    const first = await importJob(GRAPH, { incremental: true });

    expect(first).toMatchObject({ incremental: true, result: { mode: 'full', added: 7 } });
    expect(first.result.notices).toEqual([
      expect.stringContaining('no earlier import left a delta link'),
    ]);
    // One page of groups, and one delta call for the link, taken before the read.
    expect(graphCalls()).toMatchObject({ fullPages: 1, deltaPages: 1 });
    expect(await bench.runtime.services.catalogue.changeCursor(GRAPH)).toMatchObject({
      jobId: first.jobId,
    });
  });

  it('falls back to a full import with a notice when the delta link expired, and keeps a new one', async () => {
    const graph = bench.sandboxes.graph;
    const sales = bench.sandboxes.graphGroups['Sales']!;
    graph.expireDeltaTokens();
    graph.updateGroup(sales, { mailEnabled: true });
    graph.clearRequests();

    const fallback = await importJob(GRAPH, { incremental: true });

    expect(fallback.result).toMatchObject({ mode: 'full', groups: 7, unchanged: 7 });
    expect(fallback.result.notices).toEqual([
      expect.stringMatching(
        /delta link of the last import is no longer valid \(Graph answered 400 syncStateNotFound\): the whole catalogue was read instead/,
      ),
    ]);
    expect(graphCalls()).toMatchObject({ fullPages: 1 });
    expect((await rolesById()).get(sales)).toMatchObject({
      writable: false,
      notWritableReason: expect.stringContaining('mail-enabled security group'),
    });

    graph.updateGroup(sales, { displayName: 'Sales EMEA' });
    graph.clearRequests();
    const next = await importJob(GRAPH, { incremental: true });
    expect(next.result).toMatchObject({ mode: 'incremental', groups: 1, renameSkipped: 1 });
    expect(graphCalls().fullPages).toBe(0);
    expect((await rolesById()).get(sales)).toMatchObject({
      displayName: 'Sales',
      targetName: 'Sales EMEA',
    });
  });

  it('after a full import of 20,000 groups, reads only 10 changes (4 added, 3 renamed, 3 deleted) and applies exactly those', async () => {
    const graph = bench.sandboxes.graph;
    const seeded = Array.from(
      { length: 20_000 },
      (_, i) => graph.addGroup({ displayName: `Delta group ${i}` }).id,
    );
    graph.clearRequests();
    const full = await importJob(GRAPH, { incremental: false });
    expect(full.result).toMatchObject({ mode: 'full', added: 20_000, notices: [] });
    // What GET /jobs/{id} showed as it ran, as it stood at the end.
    expect(await bench.runtime.services.catalogue.importProgress(full.jobId)).toMatchObject({
      mode: 'full',
      groupsRead: 20_000 + 7,
      groupsApplied: 20_000 + 7,
    });
    // 999 groups a page, and the delta link taken before the read.
    expect(graphCalls()).toMatchObject({ fullPages: 21, deltaPages: 1 });

    const before = await rolesById();
    const added = [0, 1, 2, 3].map((i) => graph.addGroup({ displayName: `New group ${i}` }).id);
    const renamed = seeded.slice(100, 103);
    renamed.forEach((id, i) => graph.updateGroup(id, { displayName: `Renamed group ${i}` }));
    const deleted = seeded.slice(200, 203);
    for (const id of deleted) graph.deleteGroup(id);
    graph.clearRequests();

    const incremental = await importJob(GRAPH, { incremental: true, overwriteExisting: true });

    expect(incremental.result).toMatchObject({
      mode: 'incremental',
      groups: 10,
      added: 4,
      renamed: 3,
      renameSkipped: 0,
      unchanged: 0,
      returned: 0,
      markedGone: 3,
      notices: [],
    });
    // One delta page; the renamed groups come as id + displayName and are read whole in one
    // $batch; each group reported removed is read by id, whose 404 proves it gone.
    const calls = graphCalls();
    expect(calls.deltaPages).toBeGreaterThanOrEqual(1);
    expect(calls.deltaPages).toBeLessThanOrEqual(2);
    expect(calls).toMatchObject({ fullPages: 0, all: calls.deltaPages + 1 + deleted.length });

    const after = await rolesById();
    const touched = [...after.values()].filter((role) => {
      const old = before.get(role.groupId);
      return old === undefined || JSON.stringify(old) !== JSON.stringify(role);
    });
    expect(touched.map((role) => role.groupId).sort()).toEqual(
      [...added, ...renamed, ...deleted].sort(),
    );
    for (const id of added) expect(after.get(id)).toMatchObject({ status: 'present' });
    renamed.forEach((id, i) =>
      expect(after.get(id)).toMatchObject({
        displayName: `Renamed group ${i}`,
        targetName: `Renamed group ${i}`,
        status: 'present',
      }),
    );
    for (const id of deleted) {
      expect(after.get(id)).toMatchObject({ status: 'gone', goneSince: incremental.startedAt });
    }
  }, 180_000);
});

describe('incremental catalogue import on SCIM', () => {
  it('reads the whole catalogue, saying the connector cannot tell what changed', async () => {
    const report = await importJob(SCIM, { incremental: true });

    expect(report.result).toMatchObject({ mode: 'full', groups: 6 });
    expect(report.result.notices).toEqual([
      `connector "${SCIM}" cannot tell what changed since the last import: the whole catalogue was read`,
    ]);
    expect(await bench.runtime.services.catalogue.changeCursor(SCIM)).toBeUndefined();
  });
});
