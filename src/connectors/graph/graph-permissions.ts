/** The tasks of the spec's permission table (spec: Authentication, connector B). */
export type GraphTask =
  | 'readAccounts'
  | 'writeAccounts'
  | 'readGroups'
  | 'readAccountGroups'
  | 'writeMemberships'
  | 'lastLogon';

/** One need of a task: any one of `anyOf` meets it; `least` is the one to ask an admin for. */
export interface PermissionNeed {
  least: string;
  anyOf: readonly string[];
}

export interface GraphTaskPermission {
  task: GraphTask;
  /** The task as the spec's table names it. */
  label: string;
  /** Every need must be met (Microsoft Graph permissions reference, per call). */
  needs: readonly PermissionNeed[];
}

const READ_USERS: PermissionNeed = {
  least: 'User.Read.All',
  anyOf: ['User.Read.All', 'User.ReadWrite.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
};
const WRITE_USERS: PermissionNeed = {
  least: 'User.ReadWrite.All',
  anyOf: ['User.ReadWrite.All', 'Directory.ReadWrite.All'],
};
const READ_GROUPS: PermissionNeed = {
  least: 'GroupMember.Read.All',
  anyOf: [
    'GroupMember.Read.All',
    'GroupMember.ReadWrite.All',
    'Group.Read.All',
    'Group.ReadWrite.All',
    'Directory.Read.All',
    'Directory.ReadWrite.All',
  ],
};
const WRITE_MEMBERS: PermissionNeed = {
  least: 'GroupMember.ReadWrite.All',
  anyOf: ['GroupMember.ReadWrite.All', 'Group.ReadWrite.All', 'Directory.ReadWrite.All'],
};
const READ_AUDIT_LOG: PermissionNeed = { least: 'AuditLog.Read.All', anyOf: ['AuditLog.Read.All'] };

/**
 * Spec: Authentication, connector B, "Application permissions required per task", as the
 * vendor documents the calls today (spec: Versioning: the vendor's current documentation
 * prevails). Where they differ: an account's groups (`GET /users/{id}/memberOf`) need a
 * permission that reads the user and one that reads groups: User.Read.All with
 * GroupMember.Read.All does it, Directory.Read.All is one way, not the only one (Microsoft
 * Graph permissions overview: objects of a kind the app may not read come back with only
 * their type and id). Last logon needs User.Read.All besides AuditLog.Read.All.
 */
export const GRAPH_PERMISSIONS: readonly GraphTaskPermission[] = [
  { task: 'readAccounts', label: 'Read accounts', needs: [READ_USERS] },
  { task: 'writeAccounts', label: 'Create, change, lock, delete accounts', needs: [WRITE_USERS] },
  { task: 'readGroups', label: 'Read groups and group structure', needs: [READ_GROUPS] },
  {
    task: 'readAccountGroups',
    label: "Read an account's groups",
    needs: [READ_USERS, READ_GROUPS],
  },
  { task: 'writeMemberships', label: 'Write memberships', needs: [WRITE_MEMBERS] },
  { task: 'lastLogon', label: 'Last logon', needs: [READ_AUDIT_LOG, READ_USERS] },
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
 * What to grant for a task, for messages.
 *
 * @example
 * permissionsToGrant('readAccountGroups'); // 'User.Read.All and GroupMember.Read.All'
 */
export function permissionsToGrant(task: GraphTask): string {
  return permissionFor(task)
    .needs.map((need) => need.least)
    .join(' and ');
}

/** A task against the token's `roles` claim: a hint only (graph-behaviour.md: Tokens). */
export interface ClaimAssessment {
  met: boolean;
  /** Roles of the claim that meet the task's needs, one per need met. */
  grantedBy: string[];
  /** The least permission of each need the claim does not meet. */
  lacking: string[];
}

/**
 * Compares the token's `roles` claim with one task's needs.
 *
 * @example
 * assessClaim('readAccountGroups', ['User.ReadWrite.All', 'GroupMember.ReadWrite.All']);
 * // { met: true, grantedBy: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'], lacking: [] }
 */
export function assessClaim(task: GraphTask, roles: readonly string[]): ClaimAssessment {
  const held = new Set(roles);
  const grantedBy: string[] = [];
  const lacking: string[] = [];
  for (const need of permissionFor(task).needs) {
    const by = need.anyOf.find((role) => held.has(role));
    if (by === undefined) lacking.push(need.least);
    else if (!grantedBy.includes(by)) grantedBy.push(by);
  }
  return { met: lacking.length === 0, grantedBy, lacking };
}
