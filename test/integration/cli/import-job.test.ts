import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext, type CliContext } from '../../../src/cli/cli-context';
import { importCommand } from '../../../src/cli/commands';

let ctx: CliContext;
beforeAll(async () => {
  ctx = await openCliContext({});
});
afterAll(async () => ctx.close());

async function importJob(connector: string, values: Record<string, boolean>) {
  const lines: string[] = [];
  const code = await importCommand(ctx, { positionals: [connector], values }, (line) =>
    lines.push(line),
  );
  return { code, text: lines.join('\n') };
}

describe('npm run cli -- import <connector> --incremental', () => {
  it('imports in full first, then only what changed, into the service catalogue', async () => {
    const first = await importJob('graph-sandbox', { incremental: true });
    expect(first.code).toBe(0);
    expect(first.text).toMatch(
      /Import Directory Groups of connector "graph-sandbox" \(full\): 7 groups read; 7 added/,
    );
    expect(first.text).toContain('notice: no earlier import left a delta link');

    const { graph, graphGroups } = ctx.sandboxes!;
    graph.updateGroup(graphGroups['Finance']!, { displayName: 'Finance EMEA' });
    const second = await importJob('graph-sandbox', { incremental: true, overwrite: true });
    expect(second.text).toMatch(/\(incremental\): 1 groups read; 0 added, 1 renamed/);
    expect(second.text).not.toContain('notice');
    const service = await ctx.service();
    expect(
      await service.services.catalogue.get('graph-sandbox', graphGroups['Finance']!),
    ).toMatchObject({ displayName: 'Finance EMEA' });
  });

  it('says why a SCIM connector is read in full', async () => {
    const scim = await importJob('scim-sandbox', { incremental: true });
    expect(scim.text).toMatch(/Import SCIM groups of connector "scim-sandbox" \(full\)/);
    expect(scim.text).toContain('cannot tell what changed since the last import');
  });
});
