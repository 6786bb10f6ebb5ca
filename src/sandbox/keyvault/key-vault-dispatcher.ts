import type { GraphReply } from '../graph/graph-error.js';
import type { LoopbackRequest } from '../graph/loopback-https-server.js';
import {
  handleTokenRequest,
  isKnownTenant,
  oauthError,
  openIdConfiguration,
} from '../graph/token-authority.js';
import type { TokenAuthorityConfig } from '../graph/token-authority.js';
import { keyVaultError } from './key-vault-error.js';
import type { KeyVaultFault, KeyVaultRequestRecord } from './key-vault-sandbox-types.js';
import { handleVaultRequest } from './key-vault-routes.js';
import type { VaultRouteDeps } from './key-vault-routes.js';

export interface KeyVaultDispatcherDeps {
  authority: TokenAuthorityConfig;
  vault: VaultRouteDeps;
  stats: { tokenRequests: number };
  record(entry: KeyVaultRequestRecord): void;
  /** The fault to answer this vault request with, if one is pending (consumes it). */
  takeFault(): KeyVaultFault | undefined;
}

const TOKEN_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;
const OPENID_PATH = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/;
const JWKS_PATH = /^\/([^/]+)\/discovery\/v2\.0\/keys$/;

/**
 * Routes the sandbox's HTTPS requests: the token authority (shared with the Graph
 * sandbox: token endpoint, OpenID configuration that MSAL fetches when it has no
 * metadata, keys) and everything else to the vault, which alone is logged.
 */
export function createKeyVaultDispatcher(
  deps: KeyVaultDispatcherDeps,
): (request: LoopbackRequest) => Promise<GraphReply> {
  return async (request) => {
    const queryAt = request.url.indexOf('?');
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    const token = TOKEN_PATH.exec(path);
    if (token !== null && request.method === 'POST') {
      deps.stats.tokenRequests += 1;
      return handleTokenRequest(
        deps.authority,
        decodeURIComponent(token[1]!),
        new URLSearchParams(request.body),
        request.headers.authorization,
      );
    }
    const openId = OPENID_PATH.exec(path);
    if (openId !== null && request.method === 'GET') {
      const tenant = decodeURIComponent(openId[1]!);
      if (!isKnownTenant(deps.authority, tenant)) {
        return oauthError(400, 'invalid_tenant', 90002, `Tenant '${tenant}' not found.`);
      }
      return { status: 200, body: openIdConfiguration(deps.authority.authority(), tenant) };
    }
    if (JWKS_PATH.test(path) && request.method === 'GET') {
      return { status: 200, body: deps.authority.issuer.jwks() };
    }
    const entry: KeyVaultRequestRecord = {
      method: request.method,
      path,
      status: 0,
      authorized: request.headers.authorization !== undefined,
    };
    deps.record(entry);
    const fault = deps.takeFault();
    const reply =
      fault === undefined
        ? await handleVaultRequest(deps.vault, {
            method: request.method,
            target: request.url,
            authorization: request.headers.authorization,
            body: request.body,
          })
        : keyVaultError(
            fault.status,
            fault.status === 429 ? 'Throttled' : 'ServiceUnavailable',
            'The sandbox vault injected a fault.',
          );
    entry.status = reply.status;
    return reply;
  };
}
