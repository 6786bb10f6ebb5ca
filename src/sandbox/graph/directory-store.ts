import { MembershipGraph } from './membership-graph.js';
import { ReplicatedValue } from './replicated-value.js';

export type DirectoryObjectKind = 'user' | 'group' | 'directoryRole' | 'administrativeUnit';

/** A stored directory object: Graph property names, `id` always present. */
export type DirectoryRecord = Record<string, unknown> & { id: string };

/** What a reader sees at one instant: the clock and the replication delay of this read. */
export interface ReadView {
  now: number;
  delayMs: number;
}

/**
 * The sandbox's in-memory directory. Users are replicated values (create, PATCH and
 * delete reach readers after the delay); groups, directory roles and administrative
 * units are seeded only and visible at once. Writers always see the committed state.
 */
export class DirectoryStore {
  readonly memberships = new MembershipGraph();
  private readonly users = new Map<string, ReplicatedValue<DirectoryRecord | undefined>>();
  private readonly upnIndex = new Map<string, string>();
  private readonly groups = new Map<string, DirectoryRecord>();
  private readonly roles = new Map<string, DirectoryRecord>();
  private readonly units = new Map<string, DirectoryRecord>();

  /** The kind of a committed object, or undefined when there is none with this id. */
  kindOf(id: string): DirectoryObjectKind | undefined {
    if (this.users.get(id)?.committed !== undefined) return 'user';
    if (this.groups.has(id)) return 'group';
    if (this.roles.has(id)) return 'directoryRole';
    if (this.units.has(id)) return 'administrativeUnit';
    return undefined;
  }

  idInUse(id: string): boolean {
    return this.users.has(id) || this.groups.has(id) || this.roles.has(id) || this.units.has(id);
  }

  seedUser(record: DirectoryRecord): void {
    this.users.set(record.id, new ReplicatedValue<DirectoryRecord | undefined>(record));
    this.upnIndex.set(upnKey(record), record.id);
  }

  seedGroup(record: DirectoryRecord): void {
    this.groups.set(record.id, record);
  }

  seedDirectoryRole(record: DirectoryRecord): void {
    this.roles.set(record.id, record);
  }

  seedAdministrativeUnit(record: DirectoryRecord): void {
    this.units.set(record.id, record);
  }

  /** Resolves `/users/{id | userPrincipalName}` against the committed state. */
  resolveUserId(idOrUpn: string): string | undefined {
    if (this.users.get(idOrUpn)?.committed !== undefined) return idOrUpn;
    return this.upnIndex.get(idOrUpn.toLowerCase());
  }

  /** Resolves a user for a read: a user created within the delay is not found yet. */
  resolveVisibleUserId(idOrUpn: string, view: ReadView): string | undefined {
    if (this.users.has(idOrUpn)) return idOrUpn;
    const key = idOrUpn.toLowerCase();
    for (const [id, value] of this.users) {
      const user = value.visibleAt(view.now, view.delayMs);
      if (user !== undefined && upnKey(user) === key) return id;
    }
    return undefined;
  }

  committedUser(id: string): DirectoryRecord | undefined {
    return this.users.get(id)?.committed;
  }

  visibleUser(id: string, view: ReadView): DirectoryRecord | undefined {
    return this.users.get(id)?.visibleAt(view.now, view.delayMs);
  }

  visibleUsers(view: ReadView): DirectoryRecord[] {
    const result: DirectoryRecord[] = [];
    for (const value of this.users.values()) {
      const user = value.visibleAt(view.now, view.delayMs);
      if (user !== undefined) result.push(user);
    }
    return result;
  }

  /** Committed user with this UPN (case-insensitive, as Entra ID compares them). */
  userIdByUpn(userPrincipalName: string): string | undefined {
    return this.upnIndex.get(userPrincipalName.toLowerCase());
  }

  createUser(record: DirectoryRecord, at: number): void {
    let value = this.users.get(record.id);
    if (value === undefined) {
      value = new ReplicatedValue<DirectoryRecord | undefined>(undefined);
      this.users.set(record.id, value);
    }
    value.write(record, at);
    this.upnIndex.set(upnKey(record), record.id);
  }

  updateUser(id: string, changes: Record<string, unknown>, at: number): void {
    const value = this.users.get(id);
    const current = value?.committed;
    if (value === undefined || current === undefined) return;
    const next: DirectoryRecord = { ...current, ...changes, id };
    value.write(next, at);
    if (upnKey(next) !== upnKey(current)) {
      this.upnIndex.delete(upnKey(current));
      this.upnIndex.set(upnKey(next), id);
    }
  }

  /** Deletes a user and its memberships (graph-behaviour.md: DELETE /users/{id}). */
  deleteUser(id: string, at: number): void {
    const value = this.users.get(id);
    const current = value?.committed;
    if (value === undefined || current === undefined) return;
    value.write(undefined, at);
    this.upnIndex.delete(upnKey(current));
    this.memberships.removeEverywhere(id, at);
  }

  deleteGroup(id: string, at: number): void {
    if (!this.groups.delete(id)) return;
    this.memberships.removeEverywhere(id, at);
  }

  group(id: string): DirectoryRecord | undefined {
    return this.groups.get(id);
  }

  allGroups(): IterableIterator<DirectoryRecord> {
    return this.groups.values();
  }

  directoryRole(id: string): DirectoryRecord | undefined {
    return this.roles.get(id);
  }

  administrativeUnit(id: string): DirectoryRecord | undefined {
    return this.units.get(id);
  }

  /** An object as a reader sees it: users through the delay, the rest as seeded. */
  visibleObject(
    id: string,
    view: ReadView,
  ): { kind: DirectoryObjectKind; record: DirectoryRecord } | undefined {
    const user = this.visibleUser(id, view);
    if (user !== undefined) return { kind: 'user', record: user };
    const group = this.groups.get(id);
    if (group !== undefined) return { kind: 'group', record: group };
    const role = this.roles.get(id);
    if (role !== undefined) return { kind: 'directoryRole', record: role };
    const unit = this.units.get(id);
    if (unit !== undefined) return { kind: 'administrativeUnit', record: unit };
    return undefined;
  }
}

function upnKey(record: DirectoryRecord): string {
  return String(record['userPrincipalName']).toLowerCase();
}
