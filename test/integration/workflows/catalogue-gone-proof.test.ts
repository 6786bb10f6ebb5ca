import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueRole } from '../../../src/domain/catalogue-import';
import type { ImportSummary } from '../../../src/workflows/activities/service-activities';
import { ORCHESTRATIONS, jobInstanceId } from '../../../src/workflows/names';
import type { JobInput, JobReport } from '../../../src/workflows/orchestrators/job-orchestrators';
import { GRAPH, SCIM, startServiceBench, type ServiceBench } from '../../support/service-bench';

/*
 * A role becomes gone only on the target's own word (DESIGN invariant 11): its read by id
 * answered with the target's not-found error. A change feed's `@removed` and a proxy's bare
 * 404 are no proof. Judged by the sandboxes' committed groups and the stored catalogue rows.
 */
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
  options: { incremental: boolean },
): Promise<JobReport & { result: ImportSummary }> {
  jobs += 1;
  const input: JobInput = {
    jobId: `gone-proof-${jobs}`,
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

async function role(connector: string, groupId: string): Promise<CatalogueRole | undefined> {
  return bench.runtime.services.catalogue.get(connector, groupId);
}

/** Deletes a group on the SCIM sandbox as its administrator would, outside the service. */
async function deleteScimGroup(groupId: string): Promise<void> {
  const answer = await fetch(`${bench.sandboxes.scim.endpoint}/Groups/${groupId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${bench.sandboxes.handChanges.scimToken}` },
  });
  expect(answer.status).toBe(204);
}

describe('Graph groups/delta: @removed is no proof of gone', () => {
  it('a live group the delta reports removed is read by id and stays present; a deleted one is marked gone', async () => {
    const graph = bench.sandboxes.graph;
    await importJob(GRAPH, { incremental: false });
    const live = graph.addGroup({ displayName: 'Out of scope' }).id;
    const deleted = graph.addGroup({ displayName: 'Deleted for real' }).id;
    await importJob(GRAPH, { incremental: true });
    expect(await role(GRAPH, live)).toMatchObject({ status: 'present' });

    graph.reportGroupRemoved(live);
    graph.deleteGroup(deleted);
    const report = await importJob(GRAPH, { incremental: true });

    expect(report.result).toMatchObject({ mode: 'incremental', markedGone: 1, foundById: 1 });
    expect(report.result.notices.join('\n')).toContain(`"Out of scope" (${live})`);
    // The target's truth: the live group is there, and its role stays present.
    expect(graph.snapshot().groups.some((group) => group.id === live)).toBe(true);
    expect(await role(GRAPH, live)).toMatchObject({ status: 'present' });
    expect(graph.snapshot().groups.some((group) => group.id === deleted)).toBe(false);
    expect(await role(GRAPH, deleted)).toMatchObject({
      status: 'gone',
      goneSince: report.startedAt,
    });
  }, 120_000);

  it("a live group reported removed whose read by id meets a proxy's bare 404 stays present, named in a notice", async () => {
    const graph = bench.sandboxes.graph;
    const live = graph.addGroup({ displayName: 'Behind a proxy' }).id;
    await importJob(GRAPH, { incremental: true });
    graph.reportGroupRemoved(live);
    graph.injectProxyNotFound(`/groups/${live}`, 'html');
    try {
      const report = await importJob(GRAPH, { incremental: true });
      expect(report.result).toMatchObject({ markedGone: 0, goneUnconfirmed: 1 });
      expect(report.result.notices.join('\n')).toMatch(
        new RegExp(`could not tell whether group "Behind a proxy" \\(${live}\\) is gone.*404`),
      );
    } finally {
      graph.clearProxyNotFound();
    }
    expect(graph.snapshot().groups.some((group) => group.id === live)).toBe(true);
    expect(await role(GRAPH, live)).toMatchObject({ status: 'present' });
  }, 120_000);
});

describe("a 404 proves gone only with the target's own not-found answer", () => {
  for (const body of ['html', 'empty'] as const) {
    it(`SCIM: a read by id answered a proxy's 404 (${body} body) leaves the role present; the server's own 404 marks it gone`, async () => {
      const scim = bench.sandboxes.scim;
      const [group] = scim.seedGroups([{ displayName: `Proxied ${body}` }]);
      await importJob(SCIM, { incremental: false });
      await deleteScimGroup(group!.id);
      scim.injectProxyNotFound(`/Groups/${group!.id}`, body);
      try {
        const report = await importJob(SCIM, { incremental: false });
        expect(report.result).toMatchObject({ markedGone: 0, goneUnconfirmed: 1 });
        expect(report.result.notices.join('\n')).toContain(
          `could not tell whether group "Proxied ${body}" (${group!.id}) is gone`,
        );
      } finally {
        scim.clearInjected();
      }
      expect(await role(SCIM, group!.id)).toMatchObject({ status: 'present' });

      const next = await importJob(SCIM, { incremental: false });
      expect(next.result).toMatchObject({ markedGone: 1, goneUnconfirmed: 0 });
      expect(scim.getGroup(group!.id)).toBeUndefined();
      expect(await role(SCIM, group!.id)).toMatchObject({ status: 'gone' });
    }, 120_000);
  }

  it("Graph: a full import's read by id answered a proxy's empty 404 leaves the role present", async () => {
    const graph = bench.sandboxes.graph;
    const group = graph.addGroup({ displayName: 'Gateway 404' }).id;
    await importJob(GRAPH, { incremental: false });
    graph.deleteGroup(group);
    graph.injectProxyNotFound(`/groups/${group}`, 'empty');
    try {
      const report = await importJob(GRAPH, { incremental: false });
      expect(report.result).toMatchObject({ markedGone: 0, goneUnconfirmed: 1 });
    } finally {
      graph.clearProxyNotFound();
    }
    expect(await role(GRAPH, group)).toMatchObject({ status: 'present' });
    const next = await importJob(GRAPH, { incremental: false });
    expect(next.result).toMatchObject({ markedGone: 1 });
    expect(await role(GRAPH, group)).toMatchObject({ status: 'gone' });
  }, 120_000);
});
