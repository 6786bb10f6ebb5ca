import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext, type CliContext } from '../../../src/cli/cli-context';
import {
  accountCommand,
  compatCommand,
  importCommand,
  provisionCommand,
  statusCommand,
  type CommandArgs,
} from '../../../src/cli/commands';

let ctx: CliContext;

beforeAll(async () => {
  ctx = await openCliContext({});
});
afterAll(async () => ctx.close());

async function run(
  command: (c: CliContext, a: CommandArgs, p: (l: string) => void) => Promise<number>,
  positionals: string[],
  values: CommandArgs['values'] = {},
) {
  const lines: string[] = [];
  const code = await command(ctx, { positionals, values }, (line) => lines.push(line));
  return { code, text: lines.join('\n') };
}

describe('the CLI against its own sandboxes (nothing configured)', () => {
  it('compat prints all six points, each fitting, and removes the test account', async () => {
    const { code, text } = await run(compatCommand, ['scim-sandbox']);
    expect(code).toBe(0);
    for (let point = 1; point <= 6; point++) {
      expect(text).toMatch(new RegExp(`^${point}\\. .+ FITS$`, 'm'));
    }
    expect(text).toMatch(/Cleanup: test account "compat-test-[^"]+" removed/);
    expect(text).not.toContain(ctx.sandboxes!.secrets['scim-sandbox-token']!);
  });

  it('status answers for both connector kinds, without secrets', async () => {
    const scim = await run(statusCommand, ['scim-sandbox']);
    const graph = await run(statusCommand, ['graph-sandbox'], { probe: true });
    expect(scim.code).toBe(0);
    expect(graph.code).toBe(0);
    expect(graph.text).toContain('token obtained');
    expect(graph.text).toMatch(/Probe: read accounts/);
    const secrets = Object.values(ctx.sandboxes!.secrets);
    for (const secret of secrets) expect(scim.text + graph.text).not.toContain(secret);
  });

  it('provision creates, grants by group name, revokes and locks, and account shows it', async () => {
    const created = await run(provisionCommand, ['scim-sandbox', 'cli.user'], {
      create: true,
      grant: 'Sales,Finance',
    });
    expect(created.text).toContain('created account "cli.user"');
    expect(created.text).toMatch(/added Sales/);
    expect(created.text).toMatch(/added Finance/);
    const changed = await run(provisionCommand, ['scim-sandbox', 'cli.user'], {
      grant: 'Sales',
      revoke: 'Finance',
      lock: true,
    });
    expect(changed.text).toMatch(/removed Finance/);
    expect(changed.text).toMatch(/unchanged Sales \(.+\) \(already as requested\)/);
    const shown = await run(accountCommand, ['scim-sandbox', 'cli.user']);
    expect(shown.text).toContain('locked');
  });

  it('import reads the catalogue and marks groups Graph will not let us write', async () => {
    const { text } = await run(importCommand, ['graph-sandbox']);
    expect(text).toMatch(/Imported 7 groups from connector "graph-sandbox" .* \(1 not writable\)/);
    expect(text).toMatch(/All Staff \(dynamic\).* not writable/);
  });

  it('names an unknown connector and the configured ones', async () => {
    await expect(run(statusCommand, ['nope'])).rejects.toThrow(
      'unknown connector "nope"; configured: scim-sandbox, graph-sandbox',
    );
  });
});
