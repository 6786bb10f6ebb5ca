import type { DirectoryRecord, DirectoryStore } from './directory-store.js';

/** A Graph sandbox's committed directory as JSON, to keep it across restarts of the local host. */
export interface DirectorySnapshot {
  users: DirectoryRecord[];
  groups: DirectoryRecord[];
  directoryRoles: DirectoryRecord[];
  administrativeUnits: DirectoryRecord[];
  /** Direct memberships: [container id, member id]. */
  memberships: [string, string][];
}

/**
 * The committed state of the directory. Passwords are left out: a kept sandbox must not put
 * the passwords requests set on disk (the service never reads them back anyway).
 */
export function snapshotDirectory(store: DirectoryStore): DirectorySnapshot {
  const groups = [...store.allGroups()];
  const directoryRoles = [...store.allDirectoryRoles()];
  const administrativeUnits = [...store.allAdministrativeUnits()];
  const memberships: [string, string][] = [];
  for (const container of [...groups, ...directoryRoles, ...administrativeUnits]) {
    for (const member of store.memberships.committedMembers(container.id)) {
      memberships.push([container.id, member]);
    }
  }
  return structuredClone({
    users: store.committedUsers().map(({ passwordProfile: _password, ...user }) => ({
      ...user,
      id: user.id,
    })),
    groups,
    directoryRoles,
    administrativeUnits,
    memberships,
  });
}

/** Seeds an empty directory with a snapshot: every object and membership visible at once. */
export function restoreDirectory(store: DirectoryStore, snapshot: DirectorySnapshot): void {
  for (const user of snapshot.users) store.seedUser(structuredClone(user));
  for (const group of snapshot.groups) store.seedGroup(structuredClone(group));
  for (const role of snapshot.directoryRoles) store.seedDirectoryRole(structuredClone(role));
  for (const unit of snapshot.administrativeUnits) {
    store.seedAdministrativeUnit(structuredClone(unit));
  }
  for (const [container, member] of snapshot.memberships) store.seedMember(container, member);
}
