import { matchesFilter } from './filter-match.js';
import { checkMemberValues, checkRemovedValues, toMembers } from './member-values.js';
import { scimError } from './scim-error.js';
import { type FilterNode, parsePatchPath } from './scim-filter.js';
import { GROUP_SCHEMA, type ScimMember, type ScimResource, type ScimStore } from './scim-store.js';
import type { ScimTruthRecorder } from './scim-truth.js';
import type { ScimQuirks } from './types.js';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const CORE = GROUP_SCHEMA.toLowerCase();

interface Operation {
  op: 'add' | 'remove' | 'replace';
  path?: string;
  value?: unknown;
}

interface Working {
  displayName: unknown;
  externalId: unknown;
  /**
   * The members as the patch leaves them, once a removal needed the list (a copy: the stored
   * group stays as it is); undefined while the patch only adds, which costs what it adds.
   */
  members: ScimMember[] | undefined;
  /** Member values this patch added and removed, on top of the stored group. */
  added: Map<string, ScimMember>;
  removed: Map<string, ScimMember>;
  /** A member's sub-attribute was changed in place: the result is compared whole. */
  rewritten: boolean;
}

/** Validates a PatchOp message (RFC 7644 §3.5.2) the way SCIMMY does for users. */
export function readPatchOperations(body: unknown): Operation[] {
  const message = body as { schemas?: unknown; Operations?: unknown } | null;
  if (
    message === null ||
    typeof message !== 'object' ||
    !Array.isArray(message.schemas) ||
    !message.schemas.includes(PATCH_OP_SCHEMA)
  ) {
    throw scimError(
      400,
      'invalidSyntax',
      `PatchOp request body messages must specify schema '${PATCH_OP_SCHEMA}'`,
    );
  }
  if (!Array.isArray(message.Operations) || message.Operations.length === 0) {
    throw scimError(
      400,
      'invalidValue',
      "PatchOp request body must contain 'Operations' with at least one operation",
    );
  }
  return message.Operations.map((raw: unknown, index) => {
    const { op, path, value } = (raw ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
    // Capitalised op names ("Replace") are accepted on read (scim-interop.md).
    const name = typeof op === 'string' ? op.toLowerCase() : '';
    if (name !== 'add' && name !== 'remove' && name !== 'replace') {
      throw scimError(
        400,
        'invalidSyntax',
        `Invalid operation '${String(op)}' for operation ${index + 1}`,
      );
    }
    if (path !== undefined && typeof path !== 'string') {
      throw scimError(400, 'invalidPath', `Invalid path for operation ${index + 1}`);
    }
    return { op: name, ...(path === undefined ? {} : { path }), value };
  });
}

function matching(members: ScimMember[], filter: FilterNode, quirks: ScimQuirks): ScimMember[] {
  const options = { caseSensitive: quirks.caseSensitiveFilters === true, coreSchema: CORE };
  return members.filter((m) => matchesFilter(filter, m, options, 'members.'));
}

/** The value of a `members[value eq "x"]` filter (member values compare exactly), else undefined. */
function valueEquals(filter: FilterNode): string | undefined {
  if (filter.kind !== 'compare' || filter.op !== 'eq' || typeof filter.value !== 'string') {
    return undefined;
  }
  const path = filter.path[0] === CORE ? filter.path.slice(1) : filter.path;
  return path.length === 1 && path[0] === 'value' ? filter.value : undefined;
}

class GroupPatcher {
  constructor(
    private readonly groupId: string,
    private readonly stored: readonly ScimMember[],
    private readonly state: Working,
    private readonly store: ScimStore,
    private readonly quirks: ScimQuirks,
  ) {}

  /** A member value as this server keeps it (quirk `memberValuesLowercased`). */
  private kept(value: string): string {
    return this.quirks.memberValuesLowercased === true ? value.toLowerCase() : value;
  }

  /** The members at this point of the patch, as a list of its own. */
  private current(): ScimMember[] {
    this.state.members ??= [...this.stored, ...this.state.added.values()];
    return this.state.members;
  }

  /** Whether the group holds this member value at this point of the patch. */
  private has(value: string): boolean {
    return (
      this.state.added.has(value) ||
      (this.store.hasMemberValue(this.groupId, value) && !this.state.removed.has(value))
    );
  }

  private addMembers(value: unknown): void {
    const added = toMembers(value).map((member) => ({ ...member, value: this.kept(member.value) }));
    checkMemberValues(added, this.store, this.quirks);
    // RFC 7644 §3.5.2.1: a value already present is not added again.
    for (const member of added) {
      if (this.has(member.value)) continue;
      this.state.members?.push(member);
      if (this.state.removed.has(member.value)) this.state.removed.delete(member.value);
      else this.state.added.set(member.value, member);
    }
  }

  /** Takes these members out of the group. */
  private drop(targets: readonly ScimMember[]): void {
    if (targets.length === 0) return;
    const values = new Set(targets.map((m) => m.value));
    this.state.members = this.current().filter((m) => !values.has(m.value));
    for (const member of targets) {
      if (this.state.added.has(member.value)) this.state.added.delete(member.value);
      else this.state.removed.set(member.value, member);
    }
  }

  private dropAll(): void {
    this.drop([...this.current()]);
  }

  private setAttribute(name: string, value: unknown, op: string): void {
    if (name === 'displayname') {
      if (typeof value !== 'string' || value.length === 0)
        throw scimError(400, 'invalidValue', "'displayName' must be a non-empty string");
      this.state.displayName = value;
    } else if (name === 'externalid') {
      this.state.externalId = value;
    } else if (name === 'members') {
      if (op === 'replace') this.dropAll();
      this.addMembers(value);
    } else {
      throw scimError(400, 'invalidPath', `Attribute '${name}' cannot be changed on a group`);
    }
  }

  private applyWithoutPath(op: Operation): void {
    if (op.op === 'remove') throw scimError(400, 'noTarget', "A 'remove' operation needs a 'path'");
    if (op.value === null || typeof op.value !== 'object' || Array.isArray(op.value)) {
      throw scimError(400, 'invalidValue', "Without 'path', 'value' must be an object");
    }
    for (const [key, value] of Object.entries(op.value)) {
      const name = key.toLowerCase();
      if (name === 'schemas' || name === 'id' || name === 'meta') continue;
      this.setAttribute(name, value, op.op);
    }
  }

  private removeMembers(
    op: Operation,
    filter: FilterNode | undefined,
    subAttribute: string | undefined,
  ): void {
    const style = this.quirks.memberRemoveStyle ?? 'any';
    if (filter !== undefined) {
      if (style === 'valueArray') {
        throw scimError(
          400,
          'invalidPath',
          "Member removal takes path 'members' with a value array on this server",
        );
      }
      const asked = valueEquals(filter);
      if (asked !== undefined) checkRemovedValues([asked], this.store, this.quirks);
      const value = asked === undefined ? undefined : this.kept(asked);
      const targets =
        value === undefined
          ? matching(this.current(), filter, this.quirks)
          : this.has(value)
            ? this.current().filter((m) => m.value === value)
            : [];
      if (subAttribute === undefined) {
        this.drop(targets);
        return;
      }
      const chosen = new Set(targets);
      this.state.rewritten ||= targets.length > 0;
      this.state.members = this.current().map((m) => {
        if (!chosen.has(m)) return m;
        const copy: ScimMember = { ...m };
        for (const key of Object.keys(copy))
          if (key.toLowerCase() === subAttribute && key !== 'value') delete copy[key];
        return copy;
      });
      return;
    }
    if (op.value === undefined) {
      // RFC 7644 §3.5.2.2: remove without a value filter clears the attribute.
      this.dropAll();
      return;
    }
    if (style === 'pathFilter') {
      throw scimError(
        400,
        'invalidValue',
        'Member removal takes path \'members[value eq "..."]\' without a value on this server',
      );
    }
    // Entra's default form: path 'members' with value [{ value }] (scim-interop.md).
    const named = toMembers(op.value).map((m) => m.value);
    checkRemovedValues(named, this.store, this.quirks);
    const values = new Set(named.map((value) => this.kept(value)));
    this.drop(this.current().filter((m) => values.has(m.value)));
  }

  apply(op: Operation): void {
    if (op.path === undefined) {
      this.applyWithoutPath(op);
      return;
    }
    const parsed = parsePatchPath(op.path);
    const segments = parsed.path[0] === CORE ? parsed.path.slice(1) : parsed.path;
    const [name, sub] = segments;
    if (name === undefined || sub !== undefined)
      throw scimError(400, 'invalidPath', `Invalid path '${op.path}' for a group`);
    if (name === 'members') {
      if (op.op === 'remove') return this.removeMembers(op, parsed.filter, parsed.subAttribute);
      if (parsed.filter !== undefined && op.op === 'replace') {
        this.removeMembers({ op: 'remove' }, parsed.filter, undefined);
        return this.addMembers(op.value);
      }
      if (parsed.filter !== undefined)
        throw scimError(400, 'invalidPath', "'add' takes path 'members' without a filter");
      return this.setAttribute(name, op.value, op.op);
    }
    if (parsed.filter !== undefined)
      throw scimError(400, 'invalidPath', `Attribute '${name}' is not multi-valued`);
    if (op.op === 'remove') {
      if (name === 'displayname') throw scimError(400, 'invalidValue', "'displayName' is required");
      if (name !== 'externalid')
        throw scimError(400, 'invalidPath', `Attribute '${name}' cannot be removed`);
      this.state.externalId = undefined;
      return;
    }
    this.setAttribute(name, op.value, op.op);
  }
}

/**
 * Applies a PatchOp to a stored group (RFC 7644 §3.5.2), honouring the member quirks, stores
 * the result and records the membership changes in the truth log. Returns the stored group,
 * or undefined when nothing changed. A patch costs what it changes, not what the group holds.
 *
 * @example
 * patchGroup(store, 'g1', { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: 'add', path: 'members', value: [{ value: 'alice' }] }] }, {}, truth);
 */
export function patchGroup(
  store: ScimStore,
  id: string,
  body: unknown,
  quirks: ScimQuirks,
  truth: ScimTruthRecorder,
): ScimResource | undefined {
  const group = store.getGroup(id);
  if (group === undefined) throw scimError(404, null, `Resource ${id} not found`);
  const operations = readPatchOperations(body);
  const state: Working = {
    displayName: group.displayName,
    externalId: group.externalId,
    members: undefined,
    added: new Map(),
    removed: new Map(),
    rewritten: false,
  };
  const stored = (group.members as ScimMember[] | undefined) ?? [];
  const patcher = new GroupPatcher(id, stored, state, store, quirks);
  for (const op of operations) patcher.apply(op);
  const membersChanged = state.added.size > 0 || state.removed.size > 0 || state.rewritten;
  const changed =
    state.displayName !== group.displayName ||
    state.externalId !== group.externalId ||
    membersChanged;
  if (!changed) return undefined;
  const attributes = { displayName: state.displayName, externalId: state.externalId };
  if (state.rewritten) {
    const replaced = store.putGroup(id, { ...group, ...attributes, members: state.members });
    truth.membersChanged(id, group.members, replaced.members);
    return replaced;
  }
  const change = { added: [...state.added.values()], removed: [...state.removed.values()] };
  const recordChange = truth.beforeMembersChange(id, [...change.added, ...change.removed]);
  const patched = store.changeMembers(id, state.members, change, attributes);
  recordChange();
  return patched;
}
