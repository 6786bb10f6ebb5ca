import { userInfo } from 'node:os';
import { quarantineOf, type QuarantineView } from '../api/quarantine-api';
import type { CliContext } from './cli-context';
import type { CommandArgs, Print } from './command-types';

/**
 * A connector's quarantine as `status` prints it, when the CLI works on the service's
 * storage (`AzureWebJobsStorage`); without, there is no quarantine but the CLI's own.
 */
export async function quarantineLines(ctx: CliContext, name: string): Promise<string[]> {
  if (ctx.config.storage === undefined) return [];
  const { services } = await ctx.service();
  return formatQuarantine(name, await quarantineOf(services, name));
}

/** `release <connector>`: ends the connector's quarantine; its held requests go on. */
export async function releaseCommand(
  ctx: CliContext,
  args: CommandArgs,
  print: Print,
): Promise<number> {
  const name = args.positionals[0] ?? '';
  ctx.settings(name);
  const { services } = await ctx.service();
  const { released } = await services.quarantine.release(
    name,
    { operator: commandLineOperator() },
    new Date().toISOString(),
  );
  print(
    released
      ? `Connector "${name}" released: its held requests go on at their next look`
      : `Connector "${name}" is not quarantined: nothing to release`,
  );
  formatQuarantine(name, await quarantineOf(services, name)).forEach((line) => print(line));
  return 0;
}

/** A connector's quarantine as the CLI prints it. */
export function formatQuarantine(name: string, view: QuarantineView): string[] {
  if (view.state === 'active') {
    const by =
      view.releasedBy !== 'operator' ? 'its probe' : (view.releasedByName ?? 'an operator');
    const last =
      view.releasedAt === undefined ? '' : ` (last quarantine ended ${view.releasedAt}, by ${by})`;
    return [`Quarantine of "${name}": not quarantined${last}`];
  }
  return [
    `Quarantine of "${name}": QUARANTINED since ${view.since ?? '?'}: ${view.reason?.code ?? ''}: ${view.reason?.message ?? ''}`,
    `  held requests: ${view.heldRequests}; probes: ${view.probes ?? 0}; next probe: ${view.nextProbeAt ?? '?'}`,
    ...(view.lastError === undefined
      ? []
      : [`  last error ${view.lastError.at}: ${view.lastError.code}: ${view.lastError.message}`]),
  ];
}

/** Who releases from the command line, as the quarantine records it: the machine's user. */
export function commandLineOperator(): string {
  try {
    return `command line (user ${userInfo().username})`;
  } catch {
    return 'command line';
  }
}
