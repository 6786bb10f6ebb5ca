import type { StatusFinding } from '../connector';

/** The tasks of the spec's permission table (spec: Authentication, connector B). */
export type GraphTask =
  | 'readAccounts'
  | 'writeAccounts'
  | 'readGroups'
  | 'readAccountGroups'
  | 'writeMemberships'
  | 'lastLogon';

export interface GraphTaskPermission {
  task: GraphTask;
  /** The task as the spec's table names it. */
  label: string;
  /** The permission the spec's table names: what an error and a finding tell the operator to grant. */
  permission: string;
  /** Application permissions that include it (Microsoft Graph permissions reference). */
  alsoGrantedBy: readonly string[];
}

/** Spec: Authentication, connector B, "Application permissions required per task". */
export const GRAPH_PERMISSIONS: readonly GraphTaskPermission[] = [
  {
    task: 'readAccounts',
    label: 'Read accounts',
    permission: 'User.Read.All',
    alsoGrantedBy: ['User.ReadWrite.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
  },
  {
    task: 'writeAccounts',
    label: 'Create, change, lock, delete accounts',
    permission: 'User.ReadWrite.All',
    alsoGrantedBy: ['Directory.ReadWrite.All'],
  },
  {
    task: 'readGroups',
    label: 'Read groups and group structure',
    permission: 'GroupMember.Read.All',
    alsoGrantedBy: [
      'GroupMember.ReadWrite.All',
      'Group.Read.All',
      'Group.ReadWrite.All',
      'Directory.Read.All',
      'Directory.ReadWrite.All',
    ],
  },
  {
    task: 'readAccountGroups',
    label: "Read an account's groups",
    permission: 'Directory.Read.All',
    alsoGrantedBy: ['Directory.ReadWrite.All'],
  },
  {
    task: 'writeMemberships',
    label: 'Write memberships',
    permission: 'GroupMember.ReadWrite.All',
    alsoGrantedBy: ['Group.ReadWrite.All', 'Directory.ReadWrite.All'],
  },
  {
    task: 'lastLogon',
    label: 'Last logon',
    permission: 'AuditLog.Read.All',
    alsoGrantedBy: [],
  },
];

/**
 * graph-behaviour.md: role-assignable groups take member writes only with this permission.
 */
export const ROLE_ASSIGNABLE_WRITE_PERMISSION = 'RoleManagement.ReadWrite.Directory';

/** The permission entry of one task. */
export function permissionFor(task: GraphTask): GraphTaskPermission {
  const entry = GRAPH_PERMISSIONS.find((candidate) => candidate.task === task);
  if (entry === undefined) throw new Error(`no permission entry for task ${task}`);
  return entry;
}

/**
 * Compares the token's `roles` claim with the spec's table, one finding per task. The
 * claim is a hint only (graph-behaviour.md: tokens are opaque; probe reads are the proof),
 * and every finding says so.
 *
 * @example
 * assessRoles(['User.Read.All'])[0]; // { name: 'Read accounts', outcome: 'granted', detail: 'User.Read.All in the token (hint) ...' }
 */
export function assessRoles(roles: readonly string[]): StatusFinding[] {
  const held = new Set(roles);
  return GRAPH_PERMISSIONS.map((entry) => {
    const by = [entry.permission, ...entry.alsoGrantedBy].find((role) => held.has(role));
    return by === undefined
      ? {
          name: entry.label,
          outcome: 'missing' as const,
          detail: `hint: the token's roles claim has no ${entry.permission} (or a permission that includes it)`,
        }
      : {
          name: entry.label,
          outcome: 'granted' as const,
          detail: `hint: ${by} is in the token's roles claim${by === entry.permission ? '' : ` (includes ${entry.permission})`}`,
        };
  });
}
