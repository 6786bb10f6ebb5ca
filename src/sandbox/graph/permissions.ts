import type { DirectoryObjectKind } from './directory-store.js';
import { GraphRequestError } from './graph-error.js';

/**
 * Application permissions that Graph accepts per call (spec: Authentication, connector
 * B, and Microsoft's per-call permission tables; the higher-privileged ReadWrite
 * variants are accepted wherever Graph accepts them).
 */
export const GRAPH_PERMISSIONS = {
  readUsers: [
    'User.Read.All',
    'User.ReadWrite.All',
    'Directory.Read.All',
    'Directory.ReadWrite.All',
  ],
  writeUsers: ['User.ReadWrite.All', 'Directory.ReadWrite.All'],
  readSignInActivity: ['AuditLog.Read.All'],
  readGroups: [
    'GroupMember.Read.All',
    'Group.Read.All',
    'Directory.Read.All',
    'GroupMember.ReadWrite.All',
    'Group.ReadWrite.All',
    'Directory.ReadWrite.All',
  ],
  /**
   * `GET /users/{id}/memberOf` reads the user: any user read permission lets the call
   * through, and each object in the answer is shown in full only when the app may read
   * its kind (Microsoft Graph permissions overview, "Limited information returned for
   * inaccessible member objects": User.Read.All + GroupMember.Read.All shows the groups).
   */
  readUserMemberOf: [
    'User.Read.All',
    'User.ReadWrite.All',
    'Directory.Read.All',
    'Directory.ReadWrite.All',
  ],
  writeMembers: ['GroupMember.ReadWrite.All', 'Group.ReadWrite.All', 'Directory.ReadWrite.All'],
  writeRoleAssignableMembers: ['RoleManagement.ReadWrite.Directory'],
  deleteGroups: ['Group.ReadWrite.All', 'Directory.ReadWrite.All'],
  readDirectoryRoles: [
    'Directory.Read.All',
    'Directory.ReadWrite.All',
    'RoleManagement.Read.Directory',
  ],
  readAdministrativeUnits: [
    'Directory.Read.All',
    'Directory.ReadWrite.All',
    'AdministrativeUnit.Read.All',
  ],
} as const satisfies Record<string, readonly string[]>;

/**
 * Template ids of the Microsoft Entra roles an app's service principal may hold; a token
 * carries them in its `wids` claim (Microsoft Entra built-in roles reference).
 */
export const ENTRA_ROLE_TEMPLATE_IDS = {
  'Global Administrator': '62e90394-69f5-4237-9190-012177145e10',
  'Privileged Authentication Administrator': '7be44c8a-adaf-4e2a-84d6-ab2649e08a13',
  'User Administrator': 'fe930be7-5e62-47db-91af-98c3a49a38b1',
} as const;

export type EntraRoleName = keyof typeof ENTRA_ROLE_TEMPLATE_IDS;

/**
 * Graph's user update and delete pages: in app-only calls, User.ReadWrite.All is not
 * enough to change or delete a user who holds a privileged administrator role; the app
 * must hold a higher privileged role ("Who can perform sensitive actions"). The sandbox
 * treats every directory role as privileged.
 */
const MAY_CHANGE_PRIVILEGED_ACCOUNTS: readonly string[] = [
  ENTRA_ROLE_TEMPLATE_IDS['Global Administrator'],
  ENTRA_ROLE_TEMPLATE_IDS['Privileged Authentication Administrator'],
];

export function hasAnyRole(roles: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((role) => roles.includes(role));
}

/** Graph's 403 for an app without the privileges a call needs. */
export function insufficientPrivileges(): GraphRequestError {
  return new GraphRequestError(
    403,
    'Authorization_RequestDenied',
    'Insufficient privileges to complete the operation.',
  );
}

/**
 * Throws Graph's 403 unless the token holds one of `accepted` (graph-behaviour.md:
 * Errors; a token without a `roles` claim gets its own message).
 */
export function requireAnyRole(roles: readonly string[], accepted: readonly string[]): void {
  if (roles.length === 0) {
    throw new GraphRequestError(
      403,
      'Authorization_RequestDenied',
      'Required roles claim values are not provided.',
    );
  }
  if (!hasAnyRole(roles, accepted)) throw insufficientPrivileges();
}

/**
 * Throws Graph's 403 (the same code and message as a missing permission) when the user
 * holds a directory role and the token's `wids` carry no role that may change such users.
 */
export function requireMayChangeUser(holdsDirectoryRole: boolean, wids: readonly string[]): void {
  if (holdsDirectoryRole && !hasAnyRole(wids, MAY_CHANGE_PRIVILEGED_ACCOUNTS)) {
    throw insufficientPrivileges();
  }
}

/**
 * Whether the app may read an object of this kind inside a mixed collection; when not,
 * Graph returns only `@odata.type` and `id` (graph-behaviour.md: Reads and paging).
 */
export function canReadKind(kind: DirectoryObjectKind, roles: readonly string[]): boolean {
  switch (kind) {
    case 'user':
      return (
        hasAnyRole(roles, GRAPH_PERMISSIONS.readUsers) ||
        hasAnyRole(roles, GRAPH_PERMISSIONS.readGroups)
      );
    case 'group':
      return hasAnyRole(roles, GRAPH_PERMISSIONS.readGroups);
    case 'directoryRole':
      return hasAnyRole(roles, GRAPH_PERMISSIONS.readDirectoryRoles);
    case 'administrativeUnit':
      return hasAnyRole(roles, GRAPH_PERMISSIONS.readAdministrativeUnits);
  }
}
