/** Spec: Versioning: connector A's paths sit under `/scim/v2/` below the Base URL. */
export const SCIM_ROOT = '/scim/v2';

export type ScimResource = 'Users' | 'Groups' | 'ServiceProviderConfig' | 'Schemas';

/**
 * The URL of a SCIM endpoint: Base URL + `/scim/v2/` + resource (+ id), with query parameters
 * encoded.
 *
 * @example
 * scimUrl('https://app.example', 'Users', undefined, { filter: 'userName eq "a"' }).href;
 * // 'https://app.example/scim/v2/Users?filter=userName+eq+%22a%22'
 */
export function scimUrl(
  baseUrl: string,
  resource: ScimResource,
  id?: string,
  query: Record<string, string | number | undefined> = {},
): URL {
  const path = id === undefined ? resource : `${resource}/${encodeURIComponent(id)}`;
  const url = new URL(`${baseUrl}${SCIM_ROOT}/${path}`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}
