import type { Projection } from './attribute-projection.js';
import { splitAttributePath } from './scim-filter.js';
import type { ScimResource } from './scim-store.js';

/**
 * Where a last-logon attribute lives in a user resource. A URN path keeps its schema URN as
 * one key: `urn:example:2.0:Activity.lastSeen` -> `{"urn:example:2.0:Activity": {"lastSeen"}}`;
 * a plain dotted path nests: `activity.lastSignIn` -> `{"activity": {"lastSignIn"}}`.
 */
export function lastLogonKeys(attribute: string): { keys: string[]; extensionSchema?: string } {
  if (attribute.toLowerCase().startsWith('urn:')) {
    const colon = attribute.lastIndexOf(':');
    const dot = attribute.indexOf('.', colon);
    if (dot === -1) {
      // RFC 7644 §3.10 form `urn:...:Schema:attr`.
      const schema = attribute.slice(0, colon);
      return { keys: [schema, attribute.slice(colon + 1)], extensionSchema: schema };
    }
    const schema = attribute.slice(0, dot);
    return { keys: [schema, ...attribute.slice(dot + 1).split('.')], extensionSchema: schema };
  }
  return { keys: attribute.split('.') };
}

function requested(attribute: string, projection: Projection | undefined): boolean {
  if (projection === undefined) return true;
  const own = splitAttributePath(attribute).join('.');
  const named = projection.paths.some((p) => own.startsWith(p.join('.')));
  return projection.mode === 'include' ? named : !named;
}

/**
 * A copy of a user resource carrying `iso` under the configured last-logon attribute
 * (spec: Last-logon value; SCIM defines no standard attribute), unless the request's
 * `attributes`/`excludedAttributes` leave it out.
 *
 * @example
 * withLastLogon(user, 'lastLogin', '2024-05-01T10:00:00Z', undefined); // { ...user, lastLogin: '2024-05-01T10:00:00Z' }
 */
export function withLastLogon(
  resource: ScimResource,
  attribute: string,
  iso: string,
  projection: Projection | undefined,
): ScimResource {
  if (!requested(attribute, projection)) return resource;
  const { keys, extensionSchema } = lastLogonKeys(attribute);
  const result: ScimResource = { ...resource };
  let target = result;
  keys.forEach((key, index) => {
    if (index === keys.length - 1) {
      target[key] = iso;
      return;
    }
    const existing = target[key];
    const child =
      existing !== null && typeof existing === 'object' ? { ...(existing as ScimResource) } : {};
    target[key] = child;
    target = child;
  });
  if (
    extensionSchema !== undefined &&
    Array.isArray(result.schemas) &&
    !result.schemas.includes(extensionSchema)
  ) {
    result.schemas = [...(result.schemas as string[]), extensionSchema];
  }
  return result;
}
