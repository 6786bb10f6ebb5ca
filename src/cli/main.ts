import { parseArgs } from 'node:util';
import { isProvisioningError } from '../domain/errors';
import { openCliContext } from './cli-context';
import { compatCommand } from './compat';
import {
  accountCommand,
  accountsCommand,
  groupsCommand,
  importCommand,
  provisionCommand,
  statusCommand,
  structureCommand,
  type CommandArgs,
  type Print,
} from './commands';
import type { CliContext } from './cli-context';
import { demoCommand } from './demo';
import { endGroupsCutCommand, linkCommand } from './operator-actions';
import { releaseCommand } from './quarantine';
import { reconcileCommand } from './reconcile';

const USAGE = `Usage: npm run cli -- <command> [arguments]

Commands:
  status <connector> [--probe]       check status (SCIM: ServiceProviderConfig, and the date and
                                     verdict of the last compatibility run; Graph: token, roles
                                     hint, and with --probe the probe reads); with
                                     AzureWebJobsStorage set, the connector's quarantine
  release <connector>                end the connector's quarantine: held requests go on
  end-groups-cut <connector> --reason WHY
                                     SCIM: end the cut kept for the user groups attribute, once
                                     a compatibility run found it complete after the cut
  link <connector> <accountId> --target-id ID --reason WHY
                                     after ACCOUNT_EXISTS: link the account ID to the object
                                     that holds it now (the linked one gone outside)
  compat <connector> [--group NAME]  compatibility run with a test account (SCIM): the six points
                                     with evidence, the settings to use, what will work
  import <connector>                 read the whole group catalogue
  import <connector> [--incremental] [--overwrite]
                                     run the catalogue import job into the role catalogue:
                                     only the changes since the last one where the connector
                                     can tell them (Graph), renames per "Overwrite existing roles"
  groups <connector> <text>          search groups whose name contains <text>
  accounts <connector>               list every account on the target
  account <connector> <accountId>    show an account: enabled, last logon (Graph: direct and
                                     effective inherited memberships)
  structure <connector> <group>      nested group structure below a group (Graph)
  reconcile <connector>              run the reconciliation job and print the open findings of
                                     the drift report as a table (exit code 1 when there are,
                                     or when the run could not judge everything)
  provision <connector> <accountId> [--create] [--display-name N] [--email E]
            [--grant A,B] [--revoke C] [--lock|--unlock] [--delete]
            [--requested-by WHO] [--reason WHY] [--correlation-id CASE]
            [--preview]             the plan only: reads made, nothing written
  demo                               run everything once against the sandbox (npm start)

Connectors come from PROVISIONING_CONNECTORS (JSON) and secrets from LOCAL_SECRETS;
with none configured, sandboxes on 127.0.0.1 are started as "scim-sandbox" and "graph-sandbox".`;

type Command = (ctx: CliContext, args: CommandArgs, print: Print) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  status: statusCommand,
  compat: compatCommand,
  import: importCommand,
  groups: groupsCommand,
  account: accountCommand,
  accounts: accountsCommand,
  provision: provisionCommand,
  release: releaseCommand,
  'end-groups-cut': endGroupsCutCommand,
  link: linkCommand,
  structure: structureCommand,
  reconcile: reconcileCommand,
  demo: (ctx, _args, print) => demoCommand(ctx, print),
};

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      group: { type: 'string' },
      grant: { type: 'string' },
      revoke: { type: 'string' },
      'display-name': { type: 'string' },
      email: { type: 'string' },
      'requested-by': { type: 'string' },
      reason: { type: 'string' },
      'target-id': { type: 'string' },
      'correlation-id': { type: 'string' },
      create: { type: 'boolean' },
      lock: { type: 'boolean' },
      unlock: { type: 'boolean' },
      delete: { type: 'boolean' },
      probe: { type: 'boolean' },
      incremental: { type: 'boolean' },
      overwrite: { type: 'boolean' },
      preview: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [name, ...rest] = positionals;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined || values.help === true) {
    console.log(USAGE);
    return name === undefined || name === 'help' || values.help === true ? 0 : 2;
  }
  const ctx = await openCliContext(process.env);
  try {
    return await command(ctx, { positionals: rest, values }, (line) => console.log(line));
  } finally {
    await ctx.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (isProvisioningError(error)) {
      console.error(`error ${error.code}: ${error.message}`);
    } else {
      console.error(error instanceof Error ? error.message : String(error));
    }
    process.exitCode = 1;
  },
);
