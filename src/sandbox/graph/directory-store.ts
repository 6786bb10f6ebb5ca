import { sameValue } from '../truth/same-value.js';
import type { TruthChange } from '../truth/truth-event.js';
import { TruthLog } from '../truth/truth-log.js';
import { GroupChangeLog } from './group-change-log.js';
import { MembershipGraph } from './membership-graph.js';
import { ReplicatedValue } from './replicated-value.js';
import { UserChangeLog } from './user-change-log.js';
import { userChangeKinds } from './user-change-events.js';
import type { DirectoryRecord } from './directory-record.js';

export type DirectoryObjectKind = 'user' | 'group' | 'directoryRole' | 'administrativeUnit';

export type { DirectoryRecord };

/** What a reader sees at one instant: the clock and the replication delay of this read. */
export interface ReadView {
  now: number;
  delayMs: number;
}

type ReplicatedUser = ReplicatedValue<DirectoryRecord | undefined>;

const sameUser = (a: DirectoryRecord | undefined, b: DirectoryRecord | undefined): boolean =>
  a !== undefined && b !== undefined && sameValue(a, b);

/**
 * The sandbox's in-memory directory. Users are replicated values (create, PATCH and
 * delete reach readers after the delay); groups, directory roles and administrative
 * units are seeded only and visible at once. Writers always see the committed state.
 * Every change made through the API (never seeding) goes to the truth log.
 */
export class DirectoryStore {
  readonly memberships = new MembershipGraph();
  readonly truth = new TruthLog();
  /** Every creation, update and deletion of a group and every membership change, for `groups/delta`. */
  readonly groupChanges = new GroupChangeLog();
  /** Every creation, update and deletion of a user, for `users/delta`. */
  readonly userChanges = new UserChangeLog();
  private readonly users = new Map<string, ReplicatedUser>();
  private readonly upnIndex = new Map<string, string>();
  /** When a just-created user becomes visible to writes (graph-behaviour.md: "Except right after a create"). */
  private readonly writableAt = new Map<string, number>();
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
    this.userChanges.record({ userId: record.id, kind: 'created', properties: [] });
  }

  seedGroup(record: DirectoryRecord): void {
    this.groups.set(record.id, record);
    this.groupChanges.record(record.id, 'created');
  }

  /** Changes a group's properties as an administrator would; no change when the values are the same. */
  updateGroup(id: string, changes: Record<string, unknown>, at?: number): void {
    const current = this.groups.get(id);
    if (current === undefined) return;
    const changed = Object.keys(changes).filter(
      (property) => property !== 'id' && !sameValue(current[property], changes[property]),
    );
    if (changed.length === 0) return;
    this.groups.set(id, { ...current, ...changes, id });
    this.groupChanges.record(id, 'updated', changed, at);
  }

  /** Seeding: a direct membership, visible at once. */
  seedMember(containerId: string, memberId: string): void {
    this.memberships.seed(containerId, memberId);
    this.logMember(containerId, memberId, true);
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

  /** The user as committed at `asOf` (a delta round's replica); undefined when it did not exist then. */
  userAsOf(id: string, asOf: number): DirectoryRecord | undefined {
    return this.users.get(id)?.visibleAt(asOf, 0);
  }

  visibleUsers(view: ReadView): DirectoryRecord[] {
    const result: DirectoryRecord[] = [];
    for (const value of this.users.values()) {
      const user = value.visibleAt(view.now, view.delayMs);
      if (user !== undefined) result.push(user);
    }
    return result;
  }

  /** Whether this read sees the user (its properties, or whether it exists) other than committed. */
  userIsStale(id: string | undefined, view: ReadView): boolean {
    if (id === undefined) return false;
    return this.users.get(id)?.isStaleAt(view.now, view.delayMs, sameUser) === true;
  }

  /** Whether this read sees the user exist when it does not, or the other way round. */
  userExistenceIsStale(id: string, view: ReadView): boolean {
    const value = this.users.get(id);
    if (value === undefined) return false;
    return (
      (value.visibleAt(view.now, view.delayMs) === undefined) !== (value.committed === undefined)
    );
  }

  /** Whether any user that `matches` in this read's view or in the committed state is stale. */
  hasStaleUser(view: ReadView, matches: (user: DirectoryRecord) => boolean): boolean {
    for (const value of this.users.values()) {
      if (!value.isStaleAt(view.now, view.delayMs, sameUser)) continue;
      const visible = value.visibleAt(view.now, view.delayMs);
      const committed = value.committed;
      if (
        (visible !== undefined && matches(visible)) ||
        (committed !== undefined && matches(committed))
      )
        return true;
    }
    return false;
  }

  /** Committed user with this UPN (case-insensitive, as Entra ID compares them). */
  userIdByUpn(userPrincipalName: string): string | undefined {
    return this.upnIndex.get(userPrincipalName.toLowerCase());
  }

  /** Whether a user created a moment ago is still unknown to writes at `now`. */
  hiddenFromWrites(id: string, now: number): boolean {
    return (this.writableAt.get(id) ?? -Infinity) > now;
  }

  createUser(record: DirectoryRecord, at: number, writableAt = at): void {
    let value = this.users.get(record.id);
    if (value === undefined) {
      value = new ReplicatedValue<DirectoryRecord | undefined>(undefined);
      this.users.set(record.id, value);
    }
    value.write(record, at);
    this.upnIndex.set(upnKey(record), record.id);
    if (writableAt > at) this.writableAt.set(record.id, writableAt);
    this.userChanges.record({ userId: record.id, kind: 'created', properties: [] }, at);
    this.recordUser('account created', record, at);
  }

  updateUser(id: string, changes: Record<string, unknown>, at: number): void {
    const value = this.users.get(id);
    const current = value?.committed;
    if (value === undefined || current === undefined) return;
    const kinds = userChangeKinds(current, changes);
    if (kinds.length === 0) return;
    const next: DirectoryRecord = { ...current, ...changes, id };
    value.write(next, at);
    this.userChanges.record(
      {
        userId: id,
        kind: 'updated',
        properties: Object.keys(changes).filter(
          (property) => !sameValue(current[property], changes[property]),
        ),
      },
      at,
    );
    if (upnKey(next) !== upnKey(current)) {
      this.upnIndex.delete(upnKey(current));
      this.upnIndex.set(upnKey(next), id);
    }
    for (const kind of kinds) this.recordUser(kind, next, at);
  }

  /** Deletes a user and its memberships (graph-behaviour.md: DELETE /users/{id}). */
  deleteUser(id: string, at: number): void {
    const value = this.users.get(id);
    const current = value?.committed;
    if (value === undefined || current === undefined) return;
    const groupIds = this.groupIdsOf(id);
    value.write(undefined, at);
    this.upnIndex.delete(upnKey(current));
    this.writableAt.delete(id);
    this.removeEverywhere(id, at);
    this.userChanges.record({ userId: id, kind: 'deleted', properties: [] }, at);
    this.recordUser('account deleted', current, at);
    for (const groupId of groupIds) {
      this.recordUser('member removed', current, at, { groupId, cascade: true });
    }
  }

  deleteGroup(id: string, at: number): void {
    if (!this.groups.has(id)) return;
    const memberUsers = this.memberships
      .committedMembers(id)
      .flatMap((memberId) => this.users.get(memberId)?.committed ?? []);
    this.removeEverywhere(id, at);
    this.groups.delete(id);
    this.groupChanges.record(id, 'deleted', [], at);
    for (const user of memberUsers) {
      this.recordUser('member removed', user, at, { groupId: id, cascade: true });
    }
  }

  /** Adds a direct member through the API; no change when it is one already. */
  addMember(containerId: string, memberId: string, at: number): void {
    if (this.memberships.isMember(containerId, memberId)) return;
    this.memberships.add(containerId, memberId, at);
    this.logMember(containerId, memberId, true, at);
    const user = this.users.get(memberId)?.committed;
    if (user !== undefined) this.recordUser('member added', user, at, { groupId: containerId });
  }

  /** Removes a direct member through the API; no change when it is not one. */
  removeMember(containerId: string, memberId: string, at: number): void {
    if (!this.memberships.isMember(containerId, memberId)) return;
    this.memberships.remove(containerId, memberId, at);
    this.logMember(containerId, memberId, false, at);
    const user = this.users.get(memberId)?.committed;
    if (user !== undefined) this.recordUser('member removed', user, at, { groupId: containerId });
  }

  /** Committed groups the object is a direct member of (not roles or administrative units). */
  groupIdsOf(memberId: string): string[] {
    return this.memberships.committedContainers(memberId).filter((id) => this.groups.has(id));
  }

  group(id: string): DirectoryRecord | undefined {
    return this.groups.get(id);
  }

  allGroups(): IterableIterator<DirectoryRecord> {
    return this.groups.values();
  }

  /** Every committed user (not those deleted). */
  committedUsers(): DirectoryRecord[] {
    return [...this.users.values()].flatMap((value) => value.committed ?? []);
  }

  allDirectoryRoles(): IterableIterator<DirectoryRecord> {
    return this.roles.values();
  }

  allAdministrativeUnits(): IterableIterator<DirectoryRecord> {
    return this.units.values();
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

  /** Removes every edge from and to an object that is being deleted, logging the group memberships it ends. */
  private removeEverywhere(objectId: string, at: number): void {
    const containers = this.memberships.committedContainers(objectId);
    const members = this.memberships.committedMembers(objectId);
    this.memberships.removeEverywhere(objectId, at);
    for (const containerId of containers) this.logMember(containerId, objectId, false, at);
    for (const memberId of members) this.logMember(objectId, memberId, false, at);
  }

  /** A membership change of a group (not of a role or unit) for `groups/delta`. */
  private logMember(containerId: string, memberId: string, added: boolean, at?: number): void {
    if (!this.groups.has(containerId)) return;
    const kind = this.kindOf(memberId) ?? 'user';
    this.groupChanges.recordMember(containerId, { id: memberId, added, kind }, at);
  }

  private recordUser(
    change: TruthChange,
    user: DirectoryRecord,
    at: number,
    membership: { groupId: string; cascade?: boolean } | undefined = undefined,
  ): void {
    this.truth.record({ at, change, accountId: upnKey(user), userId: user.id, ...membership });
  }
}

function upnKey(record: DirectoryRecord): string {
  return String(record['userPrincipalName']).toLowerCase();
}
