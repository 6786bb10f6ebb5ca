import type { Projection } from './attribute-projection.js';
import { withLastLogon } from './last-logon.js';
import { withUserGroups } from './user-groups.js';
import { LIST_RESPONSE_SCHEMA } from './list-resources.js';
import { GROUP_SCHEMA, type ScimResource, type ScimStore, USER_SCHEMA } from './scim-store.js';
import type { ScimQuirks } from './types.js';

export interface ShapingContext {
  /** Absolute root of this sandbox's SCIM endpoints. */
  endpoint: string;
  quirks: ScimQuirks;
  store: ScimStore;
  projection: Projection | undefined;
}

const SERVICE_ENDPOINT = /\/(?:ResourceTypes|Schemas|ServiceProviderConfig)(?:\/.*)?$/;

function isObject(value: unknown): value is ScimResource {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function hasSchema(resource: ScimResource, schema: string): boolean {
  return Array.isArray(resource.schemas) && resource.schemas.includes(schema);
}

/*
 * SCIMMY derives meta.location from process-global base paths (relative, and shared by every
 * sandbox in the process), so each response gets the absolute location of its own sandbox.
 */
function withLocation(resource: ScimResource, endpoint: string): ScimResource {
  if (!isObject(resource.meta)) return resource;
  const meta = resource.meta;
  let location: unknown = meta.location;
  if (
    (meta.resourceType === 'User' || meta.resourceType === 'Group') &&
    typeof resource.id === 'string'
  ) {
    location = `${endpoint}/${meta.resourceType}s/${resource.id}`;
  } else if (typeof location === 'string') {
    const tail = SERVICE_ENDPOINT.exec(location);
    if (tail !== null) location = `${endpoint}${tail[0]}`;
  }
  return location === undefined ? resource : { ...resource, meta: { ...meta, location } };
}

function shapeResource(resource: ScimResource, context: ShapingContext): ScimResource {
  let result = withLocation(resource, context.endpoint);
  const { quirks } = context;
  if (quirks.omitMembers === true && hasSchema(result, GROUP_SCHEMA) && 'members' in result) {
    result = { ...result };
    delete result.members;
  }
  if (
    quirks.maxMembersShown !== undefined &&
    hasSchema(result, GROUP_SCHEMA) &&
    Array.isArray(result.members) &&
    result.members.length > quirks.maxMembersShown
  ) {
    result = { ...result, members: result.members.slice(0, quirks.maxMembersShown) };
  }
  if (quirks.userGroups === 'served' && hasSchema(result, USER_SCHEMA)) {
    result = withUserGroups(result, context.store, context.projection, quirks);
  }
  if (quirks.activeAttribute !== undefined && hasSchema(result, USER_SCHEMA)) {
    result = withActiveShown(result, quirks.activeAttribute);
  }
  if (
    quirks.lastLogonAttribute !== undefined &&
    hasSchema(result, USER_SCHEMA) &&
    typeof result.id === 'string'
  ) {
    const iso = context.store.lastLogonOf(result.id);
    if (iso !== undefined)
      result = withLastLogon(result, quirks.lastLogonAttribute, iso, context.projection);
  }
  return result;
}

/** Quirk `activeAttribute`: a user's `active` left out, or spelt `Active`. */
function withActiveShown(user: ScimResource, shown: 'omitted' | 'capitalised'): ScimResource {
  if (!('active' in user)) return user;
  const { active, ...rest } = user;
  return shown === 'omitted' ? rest : { ...rest, Active: active };
}

/**
 * The last step before a JSON body leaves the sandbox: absolute locations, and the response
 * quirks (omitted members, `active` omitted or spelt `Active`, last-logon attribute, list
 * numbers as strings, no totalResults).
 *
 * @example
 * shapeBody(listResponse, { endpoint, quirks: { numbersAsStrings: true }, store, projection: undefined });
 */
export function shapeBody(body: unknown, context: ShapingContext): unknown {
  if (!isObject(body)) return body;
  if (!hasSchema(body, LIST_RESPONSE_SCHEMA)) return shapeResource(body, context);
  const resources = Array.isArray(body.Resources) ? (body.Resources as unknown[]) : [];
  const shaped: ScimResource = {
    ...body,
    Resources: resources.map((r) => (isObject(r) ? shapeResource(r, context) : r)),
  };
  if (context.quirks.numbersAsStrings === true) {
    for (const key of ['totalResults', 'itemsPerPage', 'startIndex']) {
      if (typeof shaped[key] === 'number') shaped[key] = String(shaped[key]);
    }
  }
  if (context.quirks.omitTotalResults === true) delete shaped.totalResults;
  if (context.quirks.listEndsWithoutResources === true && resources.length === 0) {
    delete shaped.Resources;
  }
  return shaped;
}
