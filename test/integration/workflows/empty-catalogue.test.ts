import { describe, expect, it } from 'vitest';
import { GRAPH, importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';

/*
 * Issue 12, item 6: setMemberships reconciles against the connector's role catalogue. With
 * no import yet it would grant and never revoke; it fails before any write instead, on
 * both connectors, judged by the sandboxes' truth.
 */
const bench = useServiceBench();

const accountOf = (connector: string) =>
  connector === GRAPH ? 'empty.catalogue@contoso.example' : 'empty.catalogue';

function truthLength(connector: string): number {
  return connector === SCIM
    ? bench.sandboxes.scim.truthLog().length
    : bench.sandboxes.graph.truthLog().length;
}

/** The account's groups by name, from the sandbox's own state. */
function truthGroups(connector: string, accountId: string): string[] {
  const { scim, graph, scimGroups, graphGroups } = bench.sandboxes;
  const ids =
    connector === SCIM
      ? scim.groupIdsOf(accountId)
      : graph.groupIdsOf(graph.userIdByUpn(accountId)!);
  const names = connector === SCIM ? scimGroups : graphGroups;
  return Object.keys(names)
    .filter((name) => ids.includes(names[name]!))
    .sort();
}

describe.each([SCIM, GRAPH])('setMemberships on %s', (connector) => {
  const accountId = accountOf(connector);

  it('fails with CATALOGUE_EMPTY before any write while no catalogue is imported', async () => {
    const created = await bench.run({
      connector,
      account: { accountId, displayName: 'Empty Catalogue' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales', 'Finance'] }],
    });
    expect(created.status).toBe('succeeded');
    const before = truthLength(connector);

    const report = await bench.run({
      connector,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Support'] }, { type: 'lock' }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]!.error).toMatchObject({
      code: 'CATALOGUE_EMPTY',
      message: expect.stringContaining(
        `the role catalogue of connector "${connector}" is empty: import it first (POST /api/connectors/${connector}/imports)`,
      ),
    });
    // Nothing was written: not the grant, not a revoke, not the lock.
    expect(truthLength(connector)).toBe(before);
    expect(truthGroups(connector, accountId)).toEqual(['Finance', 'Sales']);
  });

  it('reconciles once the catalogue is imported: grants the wanted group, revokes the others', async () => {
    await importCatalogue(bench, connector);

    const report = await bench.run({
      connector,
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Support'] }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthGroups(connector, accountId)).toEqual(['Support']);
  });
});
