import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext, type CliContext } from '../../../src/cli/cli-context';
import { statusCommand } from '../../../src/cli/commands';
import { graphConnectorSchema } from '../../../src/connectors/graph/graph-settings';
import {
  connectorName,
  FEATURES,
  PERMISSION_SETS,
  startPermissionTarget,
  type PermissionTarget,
} from '../../support/graph-permission-sets';

/** Issue 12, finding 1, through `npm run cli -- status <connector> --probe`. */
let target: PermissionTarget;

beforeAll(async () => {
  target = await startPermissionTarget();
});
afterAll(async () => target.close());

async function status(
  ctx: Pick<CliContext, 'connector'> & { config: Pick<CliContext['config'], 'storage'> },
  name: string,
) {
  const lines: string[] = [];
  const code = await statusCommand(
    ctx as CliContext,
    { positionals: [name], values: { probe: true } },
    (line) => lines.push(line),
  );
  return { code, lines };
}

/** The printed line of each feature, as `outcome (evidence)` the table states. */
function printedOutcomes(lines: readonly string[]): string[] {
  const evidence: Record<string, string> = { 'probe read': 'probe', 'token claim': 'token' };
  return FEATURES.map((feature) => {
    const line = lines.find((candidate) => candidate.includes(` ${feature}`)) ?? '';
    const match =
      /^ {2}(granted|missing|not verified)\s+.*?(?: \[(probe read|token claim)\])?: /.exec(line);
    return `${match?.[1] ?? 'absent'} (${evidence[match?.[2] ?? ''] ?? 'nothing'})`;
  });
}

describe('status --probe prints the report per permission set', () => {
  it.each(PERMISSION_SETS)('$name', async (set) => {
    const ctx = {
      connector: (name: string) => target.registry.get(name)!,
      // No storage of the service: the status check alone, no quarantine to show.
      config: { storage: undefined },
    };
    const { code, lines } = await target.withLicence(set, () => status(ctx, connectorName(set)));
    expect(code).toBe(0);
    expect(printedOutcomes(lines)).toEqual(set.probed);
  });
});

describe('status --probe of the CLI own Graph sandbox, granted User.ReadWrite.All + GroupMember.ReadWrite.All', () => {
  it("reads an account's groups, and says last logon is missing AuditLog.Read.All", async () => {
    const ctx = await openCliContext({});
    try {
      const { clientId } = graphConnectorSchema.parse(ctx.settings('graph-sandbox'));
      ctx.sandboxes!.graph.setClientRoles(clientId, [
        'User.ReadWrite.All',
        'GroupMember.ReadWrite.All',
      ]);
      const { code, lines } = await status(ctx, 'graph-sandbox');
      expect(code).toBe(0);
      expect(lines).toContainEqual(
        expect.stringMatching(/^ {2}granted {6}Read an account's groups \[probe read\]: proof: /),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}missing {6}Last logon \[probe read\]: proof: .* \(grant AuditLog\.Read\.All\)/,
        ),
      );
      expect(lines.join('\n')).not.toContain('Directory.Read.All');
    } finally {
      await ctx.close();
    }
  });
});
