import { randomUUID } from 'node:crypto';
import { scimError } from './scim-error.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export type ScimResource = Record<string, unknown>;

export interface ScimMember {
  value: string;
  [key: string]: unknown;
}

interface UserRecord {
  resource: ScimResource;
  lastLogon?: string;
  /** The server holds a password for the user (its value is never kept). */
  hasPassword?: boolean;
}

// Attributes the server owns: never taken from a client's payload.
const SERVER_OWNED = new Set(['id', 'meta', 'schemas', 'password']);

function clientAttributes(attributes: ScimResource): ScimResource {
  const result: ScimResource = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!SERVER_OWNED.has(key.toLowerCase()) && value !== undefined) result[key] = value;
  }
  return result;
}

function dedupeMembers(members: unknown): ScimMember[] | undefined {
  if (!Array.isArray(members)) return undefined;
  const seen = new Set<string>();
  const result: ScimMember[] = [];
  for (const member of members as ScimMember[]) {
    if (seen.has(member.value)) continue;
    seen.add(member.value);
    result.push(member);
  }
  return result;
}

/** A SCIM sandbox's data as JSON, to keep it across restarts of the local host. */
export interface ScimStoreSnapshot {
  users: { resource: ScimResource; lastLogon?: string }[];
  groups: ScimResource[];
}

/**
 * One sandbox's data: users and groups in creation order (stable paging), with case-insensitive
 * uniqueness indexes on userName and displayName (RFC 7643 §4.1.1 caseExact=false, §7 uniqueness).
 * `userNamesCaseExact` (quirk) makes userName compare exactly, as servers that keep it
 * case-sensitive do: users may then differ only in case, and a userName names a member or a
 * user only in its own case.
 * Every sandbox owns its own store, although SCIMMY's resource declarations are process-global.
 */
export class ScimStore {
  private readonly users = new Map<string, UserRecord>();
  /** Users' ids by userName in lower case: one, unless userNames are case-exact. */
  private readonly userIdsByName = new Map<string, string[]>();

  constructor(private readonly userNamesCaseExact: () => boolean = () => false) {}
  private readonly groups = new Map<string, ScimResource>();
  private readonly groupIdByName = new Map<string, string>();
  /** Each group's member values: a check of one member costs the same in a group of 100,000. */
  private readonly memberIndex = new Map<string, MemberIndex>();

  /** Every user and group, in creation order (the server never stores passwords). */
  snapshot(): ScimStoreSnapshot {
    return structuredClone({
      users: [...this.users.values()].map(({ resource, lastLogon }) => ({
        resource,
        ...(lastLogon === undefined ? {} : { lastLogon }),
      })),
      groups: [...this.groups.values()],
    });
  }

  /** Fills an empty store with a snapshot, ids, metadata and indexes as they were. */
  restore(snapshot: ScimStoreSnapshot): void {
    for (const { resource, lastLogon } of snapshot.users) {
      const id = String(resource.id);
      this.users.set(id, { resource: structuredClone(resource), lastLogon });
      this.nameUser(String(resource.userName), id);
    }
    for (const group of snapshot.groups) {
      const id = String(group.id);
      this.groups.set(id, structuredClone(group));
      this.groupIdByName.set(String(group.displayName).toLowerCase(), id);
      this.memberIndex.set(id, MemberIndex.of(group.members));
    }
  }

  /** Users in creation order (the stored objects: callers must not mutate them). */
  listUsers(): ScimResource[] {
    return Array.from(this.users.values(), (r) => r.resource);
  }

  /** Groups in creation order (the stored objects: callers must not mutate them). */
  listGroups(): ScimResource[] {
    return Array.from(this.groups.values());
  }

  getUser(id: string): ScimResource | undefined {
    return this.users.get(id)?.resource;
  }

  getGroup(id: string): ScimResource | undefined {
    return this.groups.get(id);
  }

  /** The user of this userName: in any case, unless userNames are case-exact. */
  findUserId(userName: string): string | undefined {
    const ids = this.userIdsByName.get(userName.toLowerCase()) ?? [];
    const exact = ids.find((id) => this.users.get(id)?.resource.userName === userName);
    return exact ?? (this.userNamesCaseExact() ? undefined : ids[0]);
  }

  private nameUser(userName: string, id: string): void {
    const key = userName.toLowerCase();
    this.userIdsByName.set(key, [...(this.userIdsByName.get(key) ?? []), id]);
  }

  private unnameUser(userName: string, id: string): void {
    const key = userName.toLowerCase();
    const rest = (this.userIdsByName.get(key) ?? []).filter((other) => other !== id);
    if (rest.length > 0) this.userIdsByName.set(key, rest);
    else this.userIdsByName.delete(key);
  }

  findGroupId(displayName: string): string | undefined {
    return this.groupIdByName.get(displayName.toLowerCase());
  }

  /** Whether the group holds exactly this member value (RFC 7644 §3.5.2.1 compares values). */
  hasMemberValue(groupId: string, value: string): boolean {
    return this.memberIndex.get(groupId)?.exact.has(value) === true;
  }

  /**
   * Whether the group holds a member value naming this account: its id, or its userName in
   * any case (userName is caseExact=false); a value naming no user only as itself.
   */
  holdsAccount(groupId: string, account: { userId: string; accountId: string }): boolean {
    const index = this.memberIndex.get(groupId);
    if (index === undefined) return false;
    if (this.userNamesCaseExact()) {
      return index.exact.has(account.userId) || index.exact.has(account.accountId);
    }
    return (
      index.exact.has(account.userId) || (index.lower.get(account.accountId.toLowerCase()) ?? 0) > 0
    );
  }

  /**
   * A group's members after a PATCH that added and removed these (the patch keeps values
   * unique): `members` is the list the patch left, or undefined when it only added, which
   * are then appended to the stored list. Costs what changed, whatever the size of the group.
   */
  changeMembers(
    id: string,
    patched: ScimMember[] | undefined,
    change: { added: readonly ScimMember[]; removed: readonly ScimMember[] },
    attributes: { displayName: unknown; externalId: unknown },
  ): ScimResource {
    const existing = this.groups.get(id);
    if (existing === undefined) throw scimError(404, null, `Resource ${id} not found`);
    const stored = (existing.members as ScimMember[] | undefined) ?? [];
    let members = patched;
    if (members === undefined) {
      // The store's own list: nothing outside the store keeps it (reads get copies).
      members = stored;
      members.push(...change.added);
    }
    if (attributes.displayName !== existing.displayName) {
      return this.putGroup(id, { ...existing, ...attributes, members });
    }
    const now = new Date().toISOString();
    const meta = existing.meta as Record<string, unknown>;
    const resource: ScimResource = { ...existing, meta: { ...meta, lastModified: now } };
    delete resource.members;
    delete resource.externalId;
    if (attributes.externalId !== undefined) resource.externalId = attributes.externalId;
    if (members.length > 0) resource.members = members;
    this.groups.set(id, resource);
    const index = this.indexOf(id);
    for (const member of change.removed) index.remove(member.value);
    for (const member of change.added) index.add(member.value);
    return resource;
  }

  isUserId(value: string): boolean {
    return this.users.has(value);
  }

  lastLogonOf(id: string): string | undefined {
    return this.users.get(id)?.lastLogon;
  }

  setLastLogon(id: string, iso: string): void {
    const record = this.users.get(id);
    if (record !== undefined) record.lastLogon = iso;
  }

  /** Records that the user now has a password (set on create or by PATCH). */
  markPasswordSet(id: string): void {
    const record = this.users.get(id);
    if (record !== undefined) record.hasPassword = true;
  }

  hasPassword(id: string): boolean {
    return this.users.get(id)?.hasPassword === true;
  }

  /** Creates (no `id`) or replaces a user; 404 for an unknown id, 409 `uniqueness` on a taken userName. */
  putUser(id: string | undefined, attributes: ScimResource, lastLogon?: string): ScimResource {
    const existing = id === undefined ? undefined : this.users.get(id);
    if (id !== undefined && existing === undefined)
      throw scimError(404, null, `Resource ${id} not found`);
    const userName = attributes.userName;
    if (typeof userName !== 'string' || userName.length === 0) {
      throw scimError(400, 'invalidValue', "Required attribute 'userName' is missing");
    }
    const holder = this.findUserId(userName);
    if (holder !== undefined && holder !== id) {
      throw scimError(409, 'uniqueness', `userName '${userName}' is already in use`);
    }
    const newId = id ?? randomUUID();
    const resource = this.build(USER_SCHEMA, 'User', newId, attributes, existing?.resource);
    if (existing !== undefined) this.unnameUser(String(existing.resource.userName), newId);
    this.nameUser(userName, newId);
    this.users.set(newId, {
      resource,
      lastLogon: lastLogon ?? existing?.lastLogon,
      ...(existing?.hasPassword === true ? { hasPassword: true } : {}),
    });
    return resource;
  }

  /** Creates (no `id`) or replaces a group; 404 for an unknown id, 409 `uniqueness` on a taken displayName. */
  putGroup(id: string | undefined, attributes: ScimResource): ScimResource {
    const existing = id === undefined ? undefined : this.groups.get(id);
    if (id !== undefined && existing === undefined)
      throw scimError(404, null, `Resource ${id} not found`);
    const displayName = attributes.displayName;
    if (typeof displayName !== 'string' || displayName.length === 0) {
      throw scimError(400, 'invalidValue', "Required attribute 'displayName' is missing");
    }
    const holder = this.groupIdByName.get(displayName.toLowerCase());
    if (holder !== undefined && holder !== id) {
      throw scimError(409, 'uniqueness', `displayName '${displayName}' is already in use`);
    }
    const newId = id ?? randomUUID();
    const members = dedupeMembers(attributes.members);
    const cleaned = {
      ...attributes,
      members: members !== undefined && members.length > 0 ? members : undefined,
    };
    const resource = this.build(GROUP_SCHEMA, 'Group', newId, cleaned, existing);
    if (existing !== undefined)
      this.groupIdByName.delete(String(existing.displayName).toLowerCase());
    this.groupIdByName.set(displayName.toLowerCase(), newId);
    this.groups.set(newId, resource);
    this.memberIndex.set(newId, MemberIndex.of(members));
    return resource;
  }

  /**
   * Groups whose members name the user, by its id or its userName (any case, as userName is
   * caseExact=false): member values may be either (connector setting `memberValue`). A
   * value naming no user matches only itself.
   */
  groupIdsOf(userIdOrUserName: string): string[] {
    const names = this.memberValueMatcher(userIdOrUserName);
    const result: string[] = [];
    for (const [groupId, group] of this.groups) {
      const members = group.members as ScimMember[] | undefined;
      if (members?.some((m) => names(m.value)) === true) result.push(groupId);
    }
    return result;
  }

  /** Deletes a user and its memberships (by id or userName) by SCIM id; false when absent. */
  deleteUser(id: string): boolean {
    const record = this.users.get(id);
    if (record === undefined) return false;
    const names = this.memberValueMatcher(id);
    this.users.delete(id);
    this.unnameUser(String(record.resource.userName), id);
    for (const [groupId, group] of this.groups) {
      const members = group.members as ScimMember[] | undefined;
      if (members?.some((m) => names(m.value))) {
        const gone = members.filter((m) => names(m.value));
        const rest = members.filter((m) => !names(m.value));
        this.groups.set(groupId, { ...group, members: rest.length > 0 ? rest : undefined });
        const index = this.indexOf(groupId);
        for (const member of gone) index.remove(member.value);
      }
    }
    return true;
  }

  deleteGroup(id: string): boolean {
    const group = this.groups.get(id);
    if (group === undefined) return false;
    this.groups.delete(id);
    this.memberIndex.delete(id);
    this.groupIdByName.delete(String(group.displayName).toLowerCase());
    return true;
  }

  private indexOf(groupId: string): MemberIndex {
    let index = this.memberIndex.get(groupId);
    if (index === undefined) {
      index = new MemberIndex();
      this.memberIndex.set(groupId, index);
    }
    return index;
  }

  private memberValueMatcher(userIdOrUserName: string): (value: string) => boolean {
    const id = this.isUserId(userIdOrUserName)
      ? userIdOrUserName
      : this.findUserId(userIdOrUserName);
    const user = id === undefined ? undefined : this.users.get(id)?.resource;
    if (id === undefined || user === undefined) return (value) => value === userIdOrUserName;
    const userName = String(user.userName);
    if (this.userNamesCaseExact()) return (value) => value === id || value === userName;
    const lower = userName.toLowerCase();
    return (value) => value === id || value.toLowerCase() === lower;
  }

  private build(
    schema: string,
    resourceType: string,
    id: string,
    attributes: ScimResource,
    previous: ScimResource | undefined,
  ): ScimResource {
    const now = new Date().toISOString();
    const previousMeta = previous?.meta as { created?: string } | undefined;
    const extensions = Object.keys(attributes).filter((k) => k.toLowerCase().startsWith('urn:'));
    return {
      schemas: [schema, ...extensions],
      id,
      ...clientAttributes(attributes),
      meta: { resourceType, created: previousMeta?.created ?? now, lastModified: now },
    };
  }
}

/** A group's member values, exact and by lower case (a userName compares in any case). */
class MemberIndex {
  readonly exact = new Set<string>();
  readonly lower = new Map<string, number>();

  /** The index of a stored member list. */
  static of(members: unknown): MemberIndex {
    const index = new MemberIndex();
    for (const member of Array.isArray(members) ? (members as ScimMember[]) : []) {
      index.add(member.value);
    }
    return index;
  }

  add(value: string): void {
    if (this.exact.has(value)) return;
    this.exact.add(value);
    const key = value.toLowerCase();
    this.lower.set(key, (this.lower.get(key) ?? 0) + 1);
  }

  remove(value: string): void {
    if (!this.exact.delete(value)) return;
    const key = value.toLowerCase();
    const count = (this.lower.get(key) ?? 1) - 1;
    if (count > 0) this.lower.set(key, count);
    else this.lower.delete(key);
  }
}
