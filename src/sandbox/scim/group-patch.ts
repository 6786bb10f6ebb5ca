import { matchesFilter } from './filter-match.js';
import { checkMemberValues, toMembers } from './member-values.js';
import { scimError } from './scim-error.js';
import { type FilterNode, parsePatchPath } from './scim-filter.js';
import { GROUP_SCHEMA, type ScimMember, type ScimResource, type ScimStore } from './scim-store.js';
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
  members: ScimMember[];
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

class GroupPatcher {
  constructor(
    private readonly state: Working,
    private readonly store: ScimStore,
    private readonly quirks: ScimQuirks,
  ) {}

  private addMembers(value: unknown): void {
    const added = toMembers(value);
    checkMemberValues(added, this.store, this.quirks);
    // RFC 7644 §3.5.2.1: a value already present is not added again.
    const present = new Set(this.state.members.map((m) => m.value));
    for (const member of added) if (!present.has(member.value)) this.state.members.push(member);
  }

  private setAttribute(name: string, value: unknown, op: string): void {
    if (name === 'displayname') {
      if (typeof value !== 'string' || value.length === 0)
        throw scimError(400, 'invalidValue', "'displayName' must be a non-empty string");
      this.state.displayName = value;
    } else if (name === 'externalid') {
      this.state.externalId = value;
    } else if (name === 'members') {
      if (op === 'replace') this.state.members = [];
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
      const targets = new Set(matching(this.state.members, filter, this.quirks));
      if (subAttribute === undefined) {
        this.state.members = this.state.members.filter((m) => !targets.has(m));
      } else {
        this.state.members = this.state.members.map((m) => {
          if (!targets.has(m)) return m;
          const copy: ScimMember = { ...m };
          for (const key of Object.keys(copy))
            if (key.toLowerCase() === subAttribute && key !== 'value') delete copy[key];
          return copy;
        });
      }
      return;
    }
    if (op.value === undefined) {
      // RFC 7644 §3.5.2.2: remove without a value filter clears the attribute.
      this.state.members = [];
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
    const values = new Set(toMembers(op.value).map((m) => m.value));
    this.state.members = this.state.members.filter((m) => !values.has(m.value));
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
 * Applies a PatchOp to a stored group (RFC 7644 §3.5.2), honouring the member quirks, and
 * stores the result. Returns the stored group, or undefined when nothing changed.
 *
 * @example
 * patchGroup(store, 'g1', { schemas: [PATCH_OP_SCHEMA], Operations: [{ op: 'add', path: 'members', value: [{ value: 'alice' }] }] }, {});
 */
export function patchGroup(
  store: ScimStore,
  id: string,
  body: unknown,
  quirks: ScimQuirks,
): ScimResource | undefined {
  const group = store.getGroup(id);
  if (group === undefined) throw scimError(404, null, `Resource ${id} not found`);
  const operations = readPatchOperations(body);
  const state: Working = {
    displayName: group.displayName,
    externalId: group.externalId,
    members: [...((group.members as ScimMember[] | undefined) ?? [])],
  };
  const patcher = new GroupPatcher(state, store, quirks);
  for (const op of operations) patcher.apply(op);
  const changed =
    state.displayName !== group.displayName ||
    state.externalId !== group.externalId ||
    JSON.stringify(state.members) !== JSON.stringify(group.members ?? []);
  if (!changed) return undefined;
  return store.putGroup(id, {
    ...group,
    displayName: state.displayName,
    externalId: state.externalId,
    members: state.members,
  });
}
