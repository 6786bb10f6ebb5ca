import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext, type CliContext } from '../../../src/cli/cli-context';
import { releaseCommand } from '../../../src/cli/quarantine';
import { compatCommand } from '../../../src/cli/compat';
import {
  accountCommand,
  importCommand,
  provisionCommand,
  statusCommand,
  type CommandArgs,
} from '../../../src/cli/commands';
import { expectNoSecrets } from '../../support/no-secrets';

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
    expect(text).toMatch(/^ {2}setMemberships {2}WORKS /m);
    expect(text).toMatch(/Cleanup: test account "compat-test-[^"]+" removed/);
    expect(text).toContain('Verdict: the server fits (6 of 6 points fit as configured)');
    expectNoSecrets(text, ctx.sandboxes!.secrets, 'the output');
    const status = await run(statusCommand, ['scim-sandbox']);
    expect(status.text).toMatch(
      /^Last compatibility run: \d{4}-\d\d-\d\dT.+Z: fits: the server fits \(6 of 6 points fit as configured\)$/m,
    );
  });

  it('compat says what to set, and provision then names the run when it is not set', async () => {
    const { scim } = ctx.sandboxes!;
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', memberValuesMustBeInternalIds: true });
    try {
      const compat = await run(compatCommand, ['scim-sandbox'], { group: 'Marketing' });
      expect(compat.code).toBe(1);
      expect(compat.text).toMatch(
        /^3\. the account ID accepted as a group member value +DOES NOT FIT$/m,
      );
      expect(compat.text).toContain('   fits with memberValue: scimId');
      expect(compat.text).toContain(`"memberValue": "scimId"  (point 3, tried:`);
      expect(compat.text).toContain('Verdict: the server fits with memberValue: scimId');

      const failed = await run(provisionCommand, ['scim-sandbox', 'cli.scimid'], {
        create: true,
        grant: 'Marketing',
      });
      expect(failed.code).toBe(1);
      expect(failed.text).toMatch(
        /SCIM_INVALID_VALUE: grant needs memberValue: scimId on this server: compatibility run of .+, point 3; the connector has memberValue: accountId\. The server's answer: .+400 invalidValue/,
      );
      expect(scim.groupIdsOf('cli.scimid')).toEqual([]);
      const status = await run(statusCommand, ['scim-sandbox']);
      expect(status.text).toMatch(
        /^Last compatibility run: .+: fits with the suggested settings: /m,
      );
    } finally {
      scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    }
  });

  it('status answers for both connector kinds, without secrets', async () => {
    const scim = await run(statusCommand, ['scim-sandbox']);
    const graph = await run(statusCommand, ['graph-sandbox'], { probe: true });
    expect(scim.code).toBe(0);
    expect(graph.code).toBe(0);
    expect(graph.text).toContain('token obtained');
    expect(graph.text).toMatch(/^ {2}granted {6}Read accounts \[probe read\]: proof: GET \/users/m);
    expectNoSecrets(scim.text + graph.text, ctx.sandboxes!.secrets, 'the output');
  });

  it('provision runs through the service: creates, grants by group name, revokes and locks, journaled', async () => {
    const created = await run(provisionCommand, ['scim-sandbox', 'cli.user'], {
      create: true,
      grant: 'Sales,Finance',
      'requested-by': 'ops@example.test',
      reason: 'joiner',
      'correlation-id': 'CHG-7',
    });
    expect(created.code, created.text).toBe(0);
    expect(created.text).toContain('case CHG-7, requested by ops@example.test, reason: joiner');
    expect(created.text).toMatch(/request .+: succeeded/);
    expect(created.text).toMatch(/member added Sales/);
    expect(created.text).toMatch(/member added Finance/);
    const changed = await run(provisionCommand, ['scim-sandbox', 'cli.user'], {
      grant: 'Sales',
      revoke: 'Finance',
      lock: true,
    });
    expect(changed.code, changed.text).toBe(0);
    expect(changed.text).toMatch(/member removed Finance/);
    expect(changed.text).toMatch(/already as requested, nothing changed: Sales/);
    // The truth on the target, and the journal and account record the service kept.
    const { scim } = ctx.sandboxes!;
    expect(scim.getUser('cli.user')?.active).toBe(false);
    expect(scim.groupIdsOf('cli.user')).toEqual([scim.getGroup('Sales')?.id]);
    const service = await ctx.service();
    const journal = await service.services.journal.query({
      connector: 'scim-sandbox',
      accountId: 'cli.user',
    });
    expect(
      journal.entries
        .map((e) => `${e.change}${e.groupName === undefined ? '' : ` ${e.groupName}`}`)
        .sort(),
    ).toEqual([
      'account created',
      'account locked',
      'member added Finance',
      'member added Sales',
      'member removed Finance',
    ]);
    // The context given on the command line is in every entry of that request, and only there.
    const ofCase = await service.services.journal.query({ correlationId: 'CHG-7' });
    expect(
      ofCase.entries
        .map((e) => `${e.change}${e.groupName === undefined ? '' : ` ${e.groupName}`}`)
        .sort(),
    ).toEqual(['account created', 'member added Finance', 'member added Sales']);
    for (const entry of ofCase.entries) {
      expect(entry).toMatchObject({ requestedBy: 'ops@example.test', reason: 'joiner' });
    }
    const record = await service.services.accounts.get('scim-sandbox', 'cli.user');
    expect(record).toMatchObject({ enabled: false, assignedGroups: [scim.getGroup('Sales')?.id] });
    const shown = await run(accountCommand, ['scim-sandbox', 'cli.user']);
    expect(shown.text).toContain('locked');
  });

  it('provision --preview prints the plan and writes nothing', async () => {
    const { scim } = ctx.sandboxes!;
    const truth = scim.truthLog().length;
    const preview = await run(provisionCommand, ['scim-sandbox', 'cli.preview'], {
      create: true,
      grant: 'Sales',
      preview: true,
    });
    expect(preview.code, preview.text).toBe(0);
    expect(preview.text).toContain(
      'preview: the request would end succeeded (nothing was written)',
    );
    expect(preview.text).toMatch(/^ {6}account created$/m);
    expect(preview.text).toMatch(/^ {6}member added Sales$/m);
    expect(scim.truthLog().length).toBe(truth);
    expect(scim.getUser('cli.preview')).toBeUndefined();
    const service = await ctx.service();
    const journal = await service.services.journal.query({ accountId: 'cli.preview' });
    expect(journal.entries).toEqual([]);
    const failing = await run(provisionCommand, ['scim-sandbox', 'cli.preview'], {
      lock: true,
      preview: true,
    });
    expect(failing.code).toBe(1);
    expect(failing.text).toContain('ACCOUNT_NOT_FOUND');
  });

  it('release ends a quarantine and says when there was none', async () => {
    const { services } = await ctx.service();
    await services.quarantine.enter('graph-sandbox', {
      at: '2026-11-23T08:00:00.000Z',
      reason: { code: 'GRAPH_TOKEN_FAILED', message: 'invalid_client' },
      nextProbeAt: '2026-11-23T08:00:30.000Z',
    });
    const released = await run(releaseCommand, ['graph-sandbox']);
    expect(released.code).toBe(0);
    expect(released.text).toContain('Connector "graph-sandbox" released');
    // Who released it: the command line and the machine's user.
    expect(released.text).toMatch(
      /not quarantined \(last quarantine ended .+, by command line \(user .+\)\)/,
    );
    expect(await services.quarantine.get('graph-sandbox')).toMatchObject({
      quarantined: false,
      releasedBy: 'operator',
      releasedByName: expect.stringMatching(/^command line/),
    });
    const again = await run(releaseCommand, ['graph-sandbox']);
    expect(again.text).toContain('is not quarantined: nothing to release');
  });

  it('provision fails with a non-zero code naming the problem', async () => {
    const failed = await run(provisionCommand, ['scim-sandbox', 'cli.user'], {
      grant: 'No Such Group',
    });
    expect(failed.code).toBe(1);
    expect(failed.text).toContain('GROUP_NOT_FOUND');
    expect(failed.text).toContain('No Such Group');
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
