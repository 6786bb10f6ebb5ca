import type { StatusFinding } from '../connector';
import {
  assessClaim,
  GRAPH_PERMISSIONS,
  permissionsToGrant,
  type GraphTask,
  type GraphTaskPermission,
} from './graph-permissions';
import { probedGroups, type PermissionProbes, type ProbeRead } from './permission-probes';
import type { RolesClaim } from './token-provider';

/** The app registration the report talks about. */
export interface ReportedApp {
  clientId: string;
  tenantId: string;
}

/**
 * What to tell an admin when the token has no `roles` claim: Entra ID issues a token to an
 * app without any application permission, just without roles (graph-behaviour.md: Tokens).
 */
export function noPermissionGranted(app: ReportedApp): string {
  return (
    `no application permission is granted to this app; grant admin consent for ` +
    `${app.clientId} in tenant ${app.tenantId}`
  );
}

/**
 * The permission report, one finding per task of the spec's table: `granted` only on proof
 * (a probe read the service just made answered 200: DESIGN invariant 11), `missing` on a
 * probe refused with 403 or on the token's roles claim lacking every permission that would
 * do (a hint: Graph decides on that claim), `not verified` where nothing proves it (writes
 * are never probed; a probe that failed or was not run). Each finding names its evidence.
 *
 * @example
 * permissionReport({ kind: 'roles', roles: ['User.Read.All'] }, undefined, app)[0];
 * // { name: 'Read accounts', outcome: 'not verified', evidence: 'token', detail: 'hint: ...' }
 */
export function permissionReport(
  claim: RolesClaim,
  probes: PermissionProbes | undefined,
  app: ReportedApp,
): StatusFinding[] {
  const findings: StatusFinding[] =
    claim.kind === 'absent'
      ? [
          {
            name: 'Application permissions',
            outcome: 'missing',
            evidence: 'token',
            detail: `the access token has no roles claim: ${noPermissionGranted(app)}`,
          },
        ]
      : [];
  for (const entry of GRAPH_PERMISSIONS) {
    const hint = claimHint(entry.task, claim, app);
    const proven = probes === undefined ? undefined : fromProbes(entry.task, probes);
    findings.push(
      proven === undefined
        ? fromClaim(entry, claim, hint, probes !== undefined)
        : {
            name: entry.label,
            outcome: proven.outcome,
            ...(proven.outcome === 'not verified' ? {} : { evidence: 'probe' as const }),
            detail: `${proven.detail}; hint: ${hint}`,
          },
    );
  }
  return findings;
}

interface Proven {
  outcome: StatusFinding['outcome'];
  detail: string;
}

/** What the probe reads show for a task; undefined for tasks no probe reads (writes). */
function fromProbes(task: GraphTask, probes: PermissionProbes): Proven | undefined {
  switch (task) {
    case 'readAccounts':
      return single(probes.users, permissionsToGrant(task));
    case 'readGroups':
      return single(probes.groups, permissionsToGrant(task));
    case 'lastLogon':
      return lastLogon(probes);
    case 'readAccountGroups':
      return accountGroups(probes);
    case 'writeAccounts':
    case 'writeMemberships':
      return undefined;
  }
}

function single(read: ProbeRead, grant: string): Proven {
  switch (read.outcome.kind) {
    case 'allowed':
      return { outcome: 'granted', detail: `proof: ${read.call} answered 200` };
    case 'refused':
    case 'no-licence':
      return {
        outcome: 'missing',
        detail: `proof: ${read.call} answered ${read.outcome.answer} (grant ${grant})`,
      };
    case 'failed':
      return { outcome: 'not verified', detail: notShown(read) };
  }
}

function lastLogon(probes: PermissionProbes): Proven {
  const read = probes.signIns;
  if (read.outcome.kind === 'no-licence') {
    return {
      outcome: 'not verified',
      detail:
        `${read.call} answered ${read.outcome.answer}: the tenant has no Microsoft Entra ID ` +
        `P1 or P2 licence, so sign-in activity cannot be read whatever the permissions ` +
        `(last logon shows "not available")`,
    };
  }
  const usersReadable = probes.users.outcome.kind === 'allowed';
  return single(read, usersReadable ? 'AuditLog.Read.All' : permissionsToGrant('lastLogon'));
}

function accountGroups(probes: PermissionProbes): Proven {
  const grant = permissionsToGrant('readAccountGroups');
  const read = probes.accountGroups;
  if (read === undefined) {
    if (probes.users.outcome.kind !== 'allowed') {
      const users = single(probes.users, grant);
      return { ...users, detail: `${users.detail}: no account could be read` };
    }
    return {
      outcome: 'not verified',
      detail: `${probes.users.call} found no account whose groups a probe could read`,
    };
  }
  if (read.outcome.kind !== 'allowed') return single(read, grant);
  const groups = probedGroups(read);
  const seen =
    `${read.call} answered 200 (${groups.full} group(s) in full` +
    (groups.limited === 0 ? ')' : `, ${groups.limited} with only their type and id)`);
  switch (probes.groups.outcome.kind) {
    case 'allowed':
      return {
        outcome: 'granted',
        detail: `proof: ${seen} and ${probes.groups.call} answered 200, so groups show in full`,
      };
    case 'refused':
    case 'no-licence':
      return {
        outcome: 'missing',
        detail:
          `proof: ${seen} but ${probes.groups.call} answered ${probes.groups.outcome.answer}: ` +
          `an account's groups come back with only their type and id (grant ${grant})`,
      };
    case 'failed':
      return { outcome: 'not verified', detail: `${seen}; ${notShown(probes.groups)}` };
  }
}

function notShown(read: ProbeRead): string {
  const reason = read.outcome.kind === 'failed' ? read.outcome.reason : read.outcome.kind;
  return `not shown: the probe ${read.call} failed (${reason})`;
}

/** A task from the token's roles claim alone. */
function fromClaim(
  entry: GraphTaskPermission,
  claim: RolesClaim,
  hint: string,
  probed: boolean,
): StatusFinding {
  const name = entry.label;
  if (
    claim.kind === 'absent' ||
    (claim.kind === 'roles' && !assessClaim(entry.task, claim.roles).met)
  ) {
    return { name, outcome: 'missing', evidence: 'token', detail: `hint: ${hint}` };
  }
  const why = probed
    ? 'writes are not probed: a probe would change the directory'
    : 'run the check with the probe reads to prove it';
  return {
    name,
    outcome: 'not verified',
    ...(claim.kind === 'roles' ? { evidence: 'token' as const } : {}),
    detail: `${why}; hint: ${hint}`,
  };
}

/** The token's roles claim about one task, in words. */
function claimHint(task: GraphTask, claim: RolesClaim, app: ReportedApp): string {
  switch (claim.kind) {
    case 'absent':
      return noPermissionGranted(app);
    case 'unreadable':
      return 'the access token cannot be read, so its roles claim gives no hint';
    case 'roles': {
      const assessed = assessClaim(task, claim.roles);
      return assessed.met
        ? `the token's roles claim carries ${assessed.grantedBy.join(' and ')}`
        : `the token's roles claim carries no ${assessed.lacking.join(' and no ')} ` +
            `(nor a permission that includes it)`;
    }
  }
}
