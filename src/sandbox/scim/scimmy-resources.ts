import { SCIMMY } from 'scimmy-routers';
import { checkFilterSupport } from './filter-support.js';
import { matchesFilter } from './filter-match.js';
import { checkMemberValues } from './member-values.js';
import { scimError } from './scim-error.js';
import { parseScimFilter } from './scim-filter.js';
import { GROUP_SCHEMA, type ScimResource, type ScimStore, USER_SCHEMA } from './scim-store.js';
import type { ScimTruthRecorder } from './scim-truth.js';
import type { ScimQuirks } from './types.js';

/** What SCIMMYRouters' `context` hands every handler: the storage of the sandbox serving the request. */
export interface SandboxContext {
  store: ScimStore;
  truth: ScimTruthRecorder;
  quirks(): ScimQuirks;
}

/** The part of a SCIMMY resource instance the handlers read. */
interface ScimmyRequest {
  id?: string;
  filter?: { expression?: string };
}

function plain(instance: unknown): ScimResource {
  // SCIMMY schema instances serialise without write-only attributes such as `password`.
  return JSON.parse(JSON.stringify(instance)) as ScimResource;
}

function list(
  resources: ScimResource[],
  request: ScimmyRequest,
  ctx: SandboxContext,
  schema: string,
): ScimResource[] {
  const expression = request.filter?.expression;
  if (expression === undefined) return resources.map((r) => structuredClone(r));
  const filter = parseScimFilter(expression);
  checkFilterSupport(filter, schema, ctx.quirks());
  const options = {
    caseSensitive: ctx.quirks().caseSensitiveFilters === true,
    coreSchema: schema.toLowerCase(),
  };
  return resources.filter((r) => matchesFilter(filter, r, options)).map((r) => structuredClone(r));
}

function requireFound(resource: ScimResource | undefined, id: string): ScimResource {
  if (resource === undefined) throw scimError(404, null, `Resource ${id} not found`);
  return structuredClone(resource);
}

let declared = false;

/**
 * Declares SCIMMY's User and Group resources once per process. SCIMMY keeps handlers in
 * process-global state, so the handlers only dispatch to the store in the request's context
 * (platform-notes.md: "two servers in one process share storage" otherwise).
 */
export function declareScimmyResources(): void {
  if (declared) return;
  declared = true;
  SCIMMY.Resources.declare(SCIMMY.Resources.User, {
    egress: (request: ScimmyRequest, ctx: SandboxContext) =>
      request.id === undefined
        ? list(ctx.store.listUsers(), request, ctx, USER_SCHEMA)
        : requireFound(ctx.store.getUser(request.id), request.id),
    // SCIMMY hands PATCH here too, with the patched user: `password` is set only when the
    // request wrote one, as reads never return it.
    ingress: (request: ScimmyRequest, instance: { password?: unknown }, ctx: SandboxContext) => {
      const before = request.id === undefined ? undefined : ctx.store.getUser(request.id);
      const stored = ctx.store.putUser(request.id, plain(instance));
      // Quirks `passwordNotPatchable` and `passwordPatchIgnored` (servers that declare
      // changePassword: false): a password on create is accepted and silently ignored (a
      // PATCH on it is refused, or answered as ignored, before it gets here).
      const quirks = ctx.quirks();
      const passwordKept =
        instance.password !== undefined &&
        quirks.passwordNotPatchable !== true &&
        quirks.passwordPatchIgnored !== true;
      if (passwordKept) ctx.store.markPasswordSet(String(stored.id));
      ctx.truth.userWritten(before, stored, passwordKept);
      return structuredClone(stored);
    },
    degress: (request: ScimmyRequest, ctx: SandboxContext) => {
      const user = request.id === undefined ? undefined : ctx.store.getUser(request.id);
      const groupIds = request.id === undefined ? [] : ctx.store.groupIdsOf(request.id);
      if (request.id === undefined || user === undefined || !ctx.store.deleteUser(request.id)) {
        throw scimError(404, null, `Resource ${request.id ?? ''} not found`);
      }
      ctx.truth.userDeleted(user, groupIds);
    },
  });
  SCIMMY.Resources.declare(SCIMMY.Resources.Group, {
    egress: (request: ScimmyRequest, ctx: SandboxContext) =>
      request.id === undefined
        ? list(ctx.store.listGroups(), request, ctx, GROUP_SCHEMA)
        : requireFound(ctx.store.getGroup(request.id), request.id),
    ingress: (request: ScimmyRequest, instance: unknown, ctx: SandboxContext) => {
      const attributes = plain(instance);
      checkMemberValues(attributes.members, ctx.store, ctx.quirks());
      const before = request.id === undefined ? undefined : ctx.store.getGroup(request.id);
      const stored = ctx.store.putGroup(request.id, attributes);
      ctx.truth.membersChanged(String(stored.id), before?.members, stored.members);
      return structuredClone(stored);
    },
    degress: (request: ScimmyRequest, ctx: SandboxContext) => {
      const group = request.id === undefined ? undefined : ctx.store.getGroup(request.id);
      if (request.id === undefined || group === undefined || !ctx.store.deleteGroup(request.id)) {
        throw scimError(404, null, `Resource ${request.id ?? ''} not found`);
      }
      ctx.truth.groupDeleted(request.id, group.members);
    },
  });
}
