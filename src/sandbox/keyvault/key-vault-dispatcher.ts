import type { GraphReply } from '../graph/graph-error.js';
import type { LoopbackRequest } from '../graph/loopback-https-server.js';
import type { TokenAuthorityConfig } from '../graph/token-authority.js';
import { serveTokenAuthority } from '../graph/token-authority-routes.js';
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
  takeFault(method: string | undefined): KeyVaultFault | undefined;
}

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
    const authorityReply = serveTokenAuthority(deps.authority, deps.stats, request, path);
    if (authorityReply !== undefined) return authorityReply;
    const entry: KeyVaultRequestRecord = {
      method: request.method,
      path,
      status: 0,
      authorized: request.headers.authorization !== undefined,
    };
    deps.record(entry);
    const fault = deps.takeFault(request.method);
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
