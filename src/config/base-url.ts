/**
 * Spec: Connection settings, connector A: "If the endpoints sit under `<prefix>/scim/v2/`,
 * the value is `<prefix>`". Operators paste the full endpoint anyway, so a value ending in
 * `/scim/v2` (any case, with or without slash) is reduced to the prefix; trailing slashes go.
 *
 * @example
 * normaliseScimBaseUrl('https://app.example/tenant/scim/v2/'); // 'https://app.example/tenant'
 */
export function normaliseScimBaseUrl(value: string): string {
  const url = new URL(value);
  let path = url.pathname.replace(/\/+$/, '');
  path = path.replace(/\/scim\/v2$/i, '');
  return `${url.origin}${path.replace(/\/+$/, '')}`;
}

/** Strips trailing slashes: the Graph endpoint and authority are roots that paths are appended to. */
export function trimTrailingSlashes(value: string): string {
  return value.replace(/\/+$/, '');
}

/** True for 127.0.0.0/8, ::1 and localhost: the only hosts credentials may reach over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
