import type { GraphReply } from './graph-error.js';
import type { LoopbackRequest } from './loopback-https-server.js';
import {
  handleTokenRequest,
  isKnownTenant,
  oauthError,
  openIdConfiguration,
  type TokenAuthorityConfig,
} from './token-authority.js';

const TOKEN_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;
const OPENID_PATH = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/;
const JWKS_PATH = /^\/([^/]+)\/discovery\/v2\.0\/keys$/;

/**
 * The token authority's routes, shared by the Graph and Key Vault sandboxes: the token
 * endpoint, the OpenID configuration MSAL fetches when it has no metadata, and the keys.
 * Undefined when the request is for something else.
 */
export function serveTokenAuthority(
  authority: TokenAuthorityConfig,
  stats: { tokenRequests: number },
  request: LoopbackRequest,
  path: string,
): Promise<GraphReply> | GraphReply | undefined {
  const token = TOKEN_PATH.exec(path);
  if (token !== null && request.method === 'POST') {
    stats.tokenRequests += 1;
    return handleTokenRequest(
      authority,
      decodeURIComponent(token[1]!),
      new URLSearchParams(request.body),
      request.headers.authorization,
    );
  }
  const openId = OPENID_PATH.exec(path);
  if (openId !== null && request.method === 'GET') {
    const tenant = decodeURIComponent(openId[1]!);
    if (!isKnownTenant(authority, tenant)) {
      return oauthError(400, 'invalid_tenant', 90002, `Tenant '${tenant}' not found.`);
    }
    return { status: 200, body: openIdConfiguration(authority.authority(), tenant) };
  }
  if (JWKS_PATH.test(path) && request.method === 'GET') {
    return { status: 200, body: authority.issuer.jwks() };
  }
  return undefined;
}
