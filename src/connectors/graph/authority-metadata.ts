import { isLoopbackHost } from '../../config/base-url';

/**
 * MSAL's `authorityMetadata` (an OpenID configuration as a JSON string) for an authority
 * MSAL cannot discover: a local token authority (platform-notes.md, "MSAL against a local
 * token authority"). With it and `knownAuthorities`, MSAL sends only the token POST.
 *
 * @example
 * buildAuthorityMetadata('https://127.0.0.1:8443', 'tenant-1');
 * // '{"token_endpoint":"https://127.0.0.1:8443/tenant-1/oauth2/v2.0/token",...}'
 */
export function buildAuthorityMetadata(authority: string, tenantId: string): string {
  const base = `${authority}/${tenantId}`;
  return JSON.stringify({
    token_endpoint: `${base}/oauth2/v2.0/token`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    issuer: `${base}/v2.0`,
    jwks_uri: `${base}/discovery/v2.0/keys`,
  });
}

/** True when the authority is on this machine: MSAL must be told it is known. */
export function isLoopbackAuthority(authority: string): boolean {
  return isLoopbackHost(new URL(authority).hostname);
}
