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
  readUserMemberOf: ['Directory.Read.All', 'GroupMember.Read.All', 'Directory.ReadWrite.All'],
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

export function hasAnyRole(roles: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((role) => roles.includes(role));
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
  if (!hasAnyRole(roles, accepted)) {
    throw new GraphRequestError(
      403,
      'Authorization_RequestDenied',
      'Insufficient privileges to complete the operation.',
    );
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
