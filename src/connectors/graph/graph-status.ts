import { isProvisioningError } from '../../domain/errors';
import type { StatusFinding, StatusResult } from '../connector';
import { errorContext, type GraphContext } from './graph-context';
import { mapGraphError, readGraphError } from './graph-error-mapper';
import { readPage } from './graph-http';
import { NO_PREMIUM_LICENCE } from './graph-last-logon';
import { assessRoles, permissionFor, type GraphTask } from './graph-permissions';
import { segment } from './graph-urls';

export interface StatusOptions {
  /** Also run the probe reads that prove the read permissions (graph-behaviour.md, Tokens). */
  probe?: boolean;
}

/**
 * Spec: "Check status" is token acquisition: `ok` means a token was obtained, nothing more
 * (Connector B rule 3). Beyond the spec, the token's `roles` claim is compared with the
 * permission table (a hint per task), and on request the probe reads are run.
 */
export async function checkStatus(
  context: GraphContext,
  options: StatusOptions = {},
): Promise<StatusResult> {
  const base = { connector: context.settings.name, kind: 'graph' as const };
  let roles: string[];
  try {
    const token = await context.tokens.acquire();
    roles = token.roles;
  } catch (error) {
    const message = isProvisioningError(error) ? error.message : 'token acquisition failed';
    return {
      ...base,
      ok: false,
      summary: message,
      findings: [{ name: 'Access token', outcome: 'failed', detail: message }],
    };
  }
  const findings: StatusFinding[] = [
    {
      name: 'Access token',
      outcome: 'ok',
      detail: `obtained from ${context.tokens.authority} for ${context.settings.scopes.join(' ')}`,
    },
    ...assessRoles(roles),
  ];
  if (options.probe === true) findings.push(...(await probePermissions(context)));
  return {
    ...base,
    ok: true,
    summary: `token obtained from ${context.tokens.authority}; this confirms the app's credentials, not its Graph permissions`,
    findings,
  };
}

interface Probe {
  name: string;
  task: GraphTask;
  path: string;
}

const PROBES: Probe[] = [
  { name: 'Probe: read accounts', task: 'readAccounts', path: '/users?$top=1&$select=id' },
  { name: 'Probe: read groups', task: 'readGroups', path: '/groups?$top=1&$select=id' },
  { name: 'Probe: last logon', task: 'lastLogon', path: '/users?$top=1&$select=id,signInActivity' },
];

/**
 * The probe reads of graph-behaviour.md (Tokens): `GET /users`, `GET /groups` and
 * `GET /users` with signInActivity, one item each, plus an account's memberOf when an
 * account was found. Each read is a finding: granted (it worked), missing (403, naming the
 * permission), or failed for another reason. Writes cannot be probed without writing.
 */
export async function probePermissions(context: GraphContext): Promise<StatusFinding[]> {
  const findings: StatusFinding[] = [];
  let someUserId: string | undefined;
  for (const probe of PROBES) {
    const { finding, firstId } = await runProbe(context, probe);
    findings.push(finding);
    if (probe.task === 'readAccounts') someUserId = firstId;
  }
  if (someUserId !== undefined) {
    const probe = {
      name: "Probe: read an account's groups",
      task: 'readAccountGroups' as const,
      path: `/users/${segment(someUserId)}/memberOf?$top=1&$select=id`,
    };
    findings.push((await runProbe(context, probe)).finding);
  }
  return findings;
}

async function runProbe(
  context: GraphContext,
  probe: Probe,
): Promise<{ finding: StatusFinding; firstId?: string }> {
  const permission = permissionFor(probe.task).permission;
  try {
    const result = await context.http.send({ method: 'GET', path: probe.path });
    if (result.status === 200) {
      const first = readPage(result.body, result.describe).value[0]?.id;
      return {
        finding: {
          name: probe.name,
          outcome: 'granted',
          detail: `GET ${probe.path} succeeded (${permission} works)`,
        },
        ...(typeof first === 'string' ? { firstId: first } : {}),
      };
    }
    const code = readGraphError(result.body).code;
    if (result.status === 403 && code === NO_PREMIUM_LICENCE) {
      return {
        finding: {
          name: probe.name,
          outcome: 'unknown',
          detail: 'the tenant has no Entra ID P1/P2 licence: signInActivity is not available',
        },
      };
    }
    const error = mapGraphError(
      result,
      errorContext(context, probe.task, probe.name, context.settings.name),
    );
    return {
      finding: {
        name: probe.name,
        outcome: error.code === 'GRAPH_PERMISSION_MISSING' ? 'missing' : 'failed',
        detail: error.message,
      },
    };
  } catch (error) {
    const detail = isProvisioningError(error) ? error.message : 'the probe failed';
    return { finding: { name: probe.name, outcome: 'failed', detail } };
  }
}
