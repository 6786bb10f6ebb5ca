import { randomUUID } from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { SCIMMY, SCIMMYRouters } from 'scimmy-routers';
import { parseProjection, project } from './attribute-projection.js';
import { patchGroup, readPatchOperations } from './group-patch.js';
import { listResources } from './list-resources.js';
import { echoPatch } from './patch-echo.js';
import { queryOf } from './query-of.js';
import type { SandboxState } from './sandbox-state.js';
import { scimError } from './scim-error.js';
import { GROUP_SCHEMA, type ScimResource, type ScimStore, USER_SCHEMA } from './scim-store.js';
import { declareScimmyResources, type SandboxContext } from './scimmy-resources.js';

type Handler = (req: Request, res: Response) => void;

/** Runs a synchronous handler and forwards what it throws to the SCIM error handler. */
function route(handler: Handler) {
  return (req: Request, res: Response, next: NextFunction): void => {
    try {
      handler(req, res);
    } catch (error) {
      next(error);
    }
  };
}

function idParam(req: Request): string {
  return String(req.params.id);
}

// RFC 7643 §5; per sandbox, because SCIMMY's own configuration is process-global.
function serviceProviderConfig(state: SandboxState): unknown {
  const schemes = {
    none: [],
    bearer: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'Authentication scheme using the OAuth Bearer Token Standard',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    basic: [
      {
        type: 'httpbasic',
        name: 'HTTP Basic',
        description: 'Authentication scheme using the HTTP Basic Standard',
        specUri: 'https://www.rfc-editor.org/rfc/rfc7617',
        primary: true,
      },
    ],
  }[state.auth.type];
  const config = {
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: state.quirks.maxCount ?? 10_000 },
    changePassword: {
      supported:
        state.quirks.passwordNotPatchable !== true && state.quirks.passwordPatchIgnored !== true,
    },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: schemes,
  };
  return new SCIMMY.Schemas.ServiceProviderConfig(
    config,
    `${state.endpoint}/ServiceProviderConfig`,
  );
}

function getOne(kind: 'User' | 'Group', state: SandboxState): Handler {
  const schema = kind === 'User' ? USER_SCHEMA : GROUP_SCHEMA;
  return (req, res) => {
    const id = idParam(req);
    let resource = kind === 'User' ? state.store.getUser(id) : state.store.getGroup(id);
    if (resource === undefined) throw scimError(404, null, `Resource ${id} not found`);
    // Quirk `readAnswersUser`: the one cached user, whoever is asked for.
    if (kind === 'User' && state.quirks.readAnswersUser !== undefined) {
      resource = state.store.getUser(state.quirks.readAnswersUser) ?? resource;
    }
    res.json(project(resource, parseProjection(queryOf(req), schema.toLowerCase())));
  };
}

function list(kind: 'User' | 'Group', state: SandboxState): Handler {
  const schema = kind === 'User' ? USER_SCHEMA : GROUP_SCHEMA;
  const source = (store: ScimStore): ScimResource[] =>
    kind === 'User' ? store.listUsers() : store.listGroups();
  return (req, res) => {
    const query = queryOf(req);
    const projection = parseProjection(query, schema.toLowerCase());
    const members =
      kind === 'Group'
        ? (group: ScimResource) => {
            const id = group.id;
            return typeof id === 'string'
              ? (value: string) =>
                  state.store.hasMemberValue(
                    id,
                    state.quirks.memberValuesLowercased === true ? value.toLowerCase() : value,
                  )
              : undefined;
          }
        : undefined;
    res.json(listResources(source(state.store), query, projection, state.quirks, schema, members));
  };
}

// Quirk `ignorePatchOps`: a well-formed PATCH on an existing resource answers 204 (or 200 with
// the resource as it is: `ignoredPatchAnswersResource`; or as the patch would have left it:
// `ignoredPatchEchoesRequest`) and changes nothing.
function ignoredPatch(kind: 'User' | 'Group', state: SandboxState): Handler {
  return (req, res) => {
    const id = idParam(req);
    const exists = kind === 'User' ? state.store.getUser(id) : state.store.getGroup(id);
    if (exists === undefined) throw scimError(404, null, `Resource ${id} not found`);
    const operations = readPatchOperations(req.body);
    const { ignoredPatchAnswersResource, ignoredPatchEchoesRequest } = state.quirks;
    if (ignoredPatchAnswersResource === true || ignoredPatchEchoesRequest === true) {
      const schema = kind === 'User' ? USER_SCHEMA : GROUP_SCHEMA;
      const shown = ignoredPatchEchoesRequest === true ? echoPatch(exists, operations) : exists;
      res.json(project(shown, parseProjection(queryOf(req), schema.toLowerCase())));
      return;
    }
    res.status(204).end();
  };
}

/** A PatchOp operation that writes `password`, by path or inside a path-less value. */
function writesPassword(operation: unknown): boolean {
  const { path, value } = (operation ?? {}) as { path?: unknown; value?: unknown };
  if (typeof path === 'string') return /(^|:)password$/i.test(path.trim());
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.keys(value).some((key) => key.toLowerCase() === 'password')
  );
}

/** A well-formed PatchOp that writes `password`; a malformed one is scimmy's to refuse. */
function patchWritesPassword(body: unknown): boolean {
  try {
    return readPatchOperations(body).some(writesPassword);
  } catch {
    return false;
  }
}

/** A PatchOp operation whose path holds a value filter (RFC 7644 §3.5.2: `valuePath`). */
function hasValueFilter(operation: unknown): boolean {
  const { path } = (operation ?? {}) as { path?: unknown };
  return typeof path === 'string' && path.includes('[');
}

// Quirk `userPatchPathFiltersRefused`: plain attribute paths only.
function refusePathFilters(state: SandboxState): Handler {
  return (req) => {
    const id = idParam(req);
    if (state.store.getUser(id) === undefined)
      throw scimError(404, null, `Resource ${id} not found`);
    if (readPatchOperations(req.body).some(hasValueFilter)) {
      throw scimError(400, 'invalidPath', 'Filters in PATCH paths are not supported');
    }
  };
}

// Quirk `passwordNotPatchable` (scim-interop.md, built-in services): 400 `invalidPath`.
function refusePasswordPatch(state: SandboxState): Handler {
  return (req) => {
    const id = idParam(req);
    if (state.store.getUser(id) === undefined)
      throw scimError(404, null, `Resource ${id} not found`);
    if (readPatchOperations(req.body).some(writesPassword)) {
      throw scimError(400, 'invalidPath', "Attribute 'password' is not writable by PATCH");
    }
  };
}

// Quirk `noGroups`: the server has no Group resource type at all.
function withoutGroups(body: unknown): unknown {
  const list = body as { Resources?: unknown[]; totalResults?: number } | null;
  if (list === null || typeof list !== 'object' || !Array.isArray(list.Resources)) return body;
  const isGroup = (resource: unknown) => {
    const id = (resource as { id?: unknown } | null)?.id;
    return id === 'Group' || id === GROUP_SCHEMA;
  };
  const Resources = list.Resources.filter((resource) => !isGroup(resource));
  return { ...list, Resources, totalResults: Resources.length, itemsPerPage: Resources.length };
}

function hideGroups(state: SandboxState) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (state.quirks.noGroups !== true) {
      next();
      return;
    }
    // Mounted on /ResourceTypes and /Schemas: the path is what follows them.
    const path = req.path.toLowerCase();
    if (path === '/group' || path === `/${GROUP_SCHEMA.toLowerCase()}`) {
      next(scimError(404, null, 'Endpoint Not Found'));
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => json(withoutGroups(body));
    next();
  };
}

/** Quirk `userGroups: 'refused'`: a read that asks for the user's `groups` is refused. */
function refuseUserGroups(req: Request): Error | undefined {
  const asked = queryOf(req).get('attributes') ?? '';
  const names = asked.split(',').map((name) => name.trim().toLowerCase().split(':').at(-1));
  return names.includes('groups')
    ? scimError(400, 'invalidValue', "Attribute 'groups' is not supported")
    : undefined;
}

function notImplemented(_req: Request, res: Response, next: NextFunction): void {
  next(scimError(501, null, 'Endpoint Not Implemented'));
}

/**
 * The SCIM endpoints under the prefix. SCIMMY (via scimmy-routers) serves create, replace,
 * user PATCH, delete, /Schemas and /ResourceTypes; reads, group PATCH and
 * /ServiceProviderConfig are served here because SCIMMY's filters are case-sensitive, cannot
 * evaluate `members eq` or escaped quotes, render every match before paging, and keep one
 * configuration per process (platform-notes.md, "scimmy as a SCIM 2.0 server").
 */
export function scimRoutes(state: SandboxState): Router {
  declareScimmyResources();
  const router = Router();
  const context: SandboxContext = {
    store: state.store,
    truth: state.truth,
    quirks: () => state.quirks,
  };

  router.get('/', (_req, res) => {
    res.json({ service: 'SCIM 2.0 sandbox', endpoint: state.endpoint });
  });
  router.get(
    '/ServiceProviderConfig',
    route((_req, res) => {
      if (state.quirks.noServiceProviderConfig === true)
        throw scimError(404, null, 'Endpoint Not Found');
      res.json(serviceProviderConfig(state));
    }),
  );
  router.use('/Groups', (_req, _res, next) => {
    next(state.quirks.noGroups === true ? scimError(404, null, 'Endpoint Not Found') : undefined);
  });
  router.use(['/ResourceTypes', '/Schemas'], hideGroups(state));
  router.get(['/Users', '/Users/:id'], (req, _res, next) => {
    next(state.quirks.userGroups === 'refused' ? refuseUserGroups(req) : undefined);
  });
  router.get('/Users', route(list('User', state)));
  router.get('/Groups', route(list('Group', state)));
  router.get('/Users/:id', route(getOne('User', state)));
  router.get('/Groups/:id', route(getOne('Group', state)));
  router.patch('/Users/:id', (req, res, next) => {
    const refusals = [
      ...(state.quirks.passwordNotPatchable === true ? [refusePasswordPatch(state)] : []),
      ...(state.quirks.userPatchPathFiltersRefused === true ? [refusePathFilters(state)] : []),
    ];
    try {
      for (const refuse of refusals) refuse(req, res);
    } catch (error) {
      next(error);
      return;
    }
    const ignored =
      state.quirks.ignorePatchOps === true ||
      (state.quirks.passwordPatchIgnored === true && patchWritesPassword(req.body));
    if (!ignored) {
      next();
      return;
    }
    route(ignoredPatch('User', state))(req, res, next);
  });
  router.patch(
    '/Groups/:id',
    route((req, res) => {
      if (state.quirks.ignorePatchOps === true) return ignoredPatch('Group', state)(req, res);
      const patched = patchGroup(state.store, idParam(req), req.body, state.quirks, state.truth);
      if (patched === undefined || state.quirks.patchNoContent === true) {
        res.status(204).end();
        return;
      }
      res.json(project(patched, parseProjection(queryOf(req), GROUP_SCHEMA.toLowerCase())));
    }),
  );
  router.delete('/Users/:id', (req, res, next) => {
    // Quirk `ignoreDeletes`: answered as done, nothing deleted.
    if (state.quirks.ignoreDeletes !== true || state.store.getUser(idParam(req)) === undefined) {
      next();
      return;
    }
    res.status(204).end();
  });
  router.delete('/Users/:id', (req, res, next) => {
    // Quirk `deleteDeactivates`: answered as done, the user only deactivated.
    const before = state.store.getUser(idParam(req));
    if (state.quirks.deleteDeactivates !== true || before === undefined) {
      next();
      return;
    }
    const after = state.store.putUser(idParam(req), { ...before, active: false });
    state.truth.userWritten(before, after, false);
    res.status(204).end();
  });
  router.delete(['/Users/:id', '/Groups/:id'], (req, _res, next) => {
    if (state.quirks.deleteNotAllowed !== true) {
      next();
      return;
    }
    const id = idParam(req);
    const exists = req.path.startsWith('/Users/')
      ? state.store.getUser(id)
      : state.store.getGroup(id);
    next(
      exists === undefined
        ? scimError(404, null, `Resource ${id} not found`)
        : scimError(405, null, 'Resources cannot be deleted on this server: set active to false'),
    );
  });
  router.post('/Users', (req, res, next) => {
    if (state.quirks.createNotStored !== true) {
      next();
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.userName !== 'string' || body.userName === '') {
      next(scimError(400, 'invalidValue', "Required attribute 'userName' is missing"));
      return;
    }
    const id = randomUUID();
    const user: Record<string, unknown> = {
      ...body,
      id,
      meta: { resourceType: 'User', location: `${state.endpoint}/Users/${id}` },
    };
    delete user.password;
    res.status(201).json(user);
  });
  router.post('/Groups', (_req, _res, next) => {
    next(
      state.quirks.groupCreateNotAllowed === true
        ? scimError(405, null, 'Groups are managed in the application and cannot be created')
        : undefined,
    );
  });
  router.all('/Me', notImplemented);
  router.all('/Bulk', notImplemented);
  router.use(
    new SCIMMYRouters({
      // scimmy-routers wants a scheme type for its (process-global) configuration; our own
      // /ServiceProviderConfig above reports the real one, and authentication ran earlier.
      type: 'bearer',
      handler: () => 'sandbox',
      context: () => context,
    }),
  );
  return router;
}
