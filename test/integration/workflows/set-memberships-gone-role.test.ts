import { describe, expect, it } from 'vitest';
import { GRAPH, importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';

/*
 * setMemberships and roles the catalogue marks gone whose group the target still has (a
 * group deleted and restored since the last import, say): the account's memberships end
 * exactly as asked, or the step says what it left and why. Judged by the sandboxes' truth.
 */
const bench = useServiceBench();

const T = '2026-11-23T08:00:00.000Z';

/** Marks a role gone as an import whose read by id was answered 404 would. */
async function markGone(connector: string, groupId: string): Promise<void> {
  const catalogue = bench.runtime.services.catalogue;
  const jobId = `mark-gone-${connector}`;
  const nowMs = bench.clock.now();
  expect(await catalogue.claimImport(connector, { jobId, nowMs, ttlMs: 60_000 })).toEqual({
    held: true,
  });
  expect(
    await catalogue.markRemoved(connector, [groupId], { jobId, at: T }, { nowMs, ttlMs: 60_000 }),
  ).toBe(1);
  await catalogue.releaseImport(connector, jobId);
  expect(await catalogue.get(connector, groupId)).toMatchObject({ status: 'gone' });
}

function groupIdsOf(connector: string, accountId: string): string[] {
  const { scim, graph } = bench.sandboxes;
  return connector === SCIM
    ? scim.groupIdsOf(accountId)
    : graph.groupIdsOf(graph.userIdByUpn(accountId)!);
}

describe('setMemberships on Graph with a role marked gone whose group is still there', () => {
  const accountId = 'gone.role@contoso.example';

  it('takes the account out of it when the read shows it in, saying the role is marked gone', async () => {
    await importCatalogue(bench, GRAPH);
    const { graphGroups } = bench.sandboxes;
    const legal = graphGroups['Finance']!;
    const created = await bench.run({
      connector: GRAPH,
      account: { accountId, displayName: 'Gone Role' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Finance', 'Sales'] }],
    });
    expect(created.status).toBe('succeeded');
    await markGone(GRAPH, legal);

    const report = await bench.run({
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Sales'] }],
    });

    expect(report.status).toBe('succeeded');
    // The target's truth: exactly Sales.
    expect(groupIdsOf(GRAPH, accountId)).toEqual([graphGroups['Sales']]);
    expect(report.steps[0]!.notices.join('\n')).toContain(
      `Finance (${legal}) is marked gone in the role catalogue`,
    );
  });

  it('grants a named role marked gone that the target has, saying the role is marked gone', async () => {
    const { graphGroups } = bench.sandboxes;
    const legal = graphGroups['Finance']!;
    const report = await bench.run({
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Sales', { id: legal }] }],
    });
    expect(report.status).toBe('succeeded');
    expect(groupIdsOf(GRAPH, accountId).sort()).toEqual([graphGroups['Sales'], legal].sort());
    expect(report.steps[0]!.notices.join('\n')).toContain(
      `Finance (${legal}) is marked gone in the role catalogue`,
    );
  });
});

describe('setMemberships on SCIM with a role marked gone', () => {
  const accountId = 'gone.role';

  it('names a gone role the service granted that it did not read, instead of leaving it silently', async () => {
    await importCatalogue(bench, SCIM);
    const { scimGroups } = bench.sandboxes;
    const legal = scimGroups['Finance']!;
    const created = await bench.run({
      connector: SCIM,
      account: { accountId, displayName: 'Gone Role' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Finance', 'Sales'] }],
    });
    expect(created.status).toBe('succeeded');
    await markGone(SCIM, legal);

    const report = await bench.run({
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Sales'] }],
    });

    // The sandbox still has the group and the account in it: the step must say so.
    expect(groupIdsOf(SCIM, accountId)).toContain(legal);
    expect(report.steps[0]!.notices.join('\n')).toContain(
      `Finance (${legal}) is marked gone in the role catalogue`,
    );
  });
});
