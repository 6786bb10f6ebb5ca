import { createLocalJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { AccessTokenIssuer } from '../graph/access-token-issuer.js';
import type { GraphReply } from '../graph/graph-error.js';
import { graphTokenIssuer } from '../graph/token-authority.js';
import { keyVaultError } from './key-vault-error.js';

/** The resource (token audience) of every Azure Key Vault in the public cloud. */
export const KEY_VAULT_RESOURCE = 'https://vault.azure.net';

export interface VaultAuthorizationConfig {
  tenantId: string;
  /** `https://127.0.0.1:PORT`: the authority the challenge points to. */
  authorityHost(): string;
  issuer: AccessTokenIssuer;
}

export type VaultCaller = { ok: true; appId: string } | { ok: false; reply: GraphReply };

/**
 * Key Vault's bearer challenge (platform-notes.md): the tenant's authority and the vault
 * resource, sent with every 401 so that a client without a token learns where to get one.
 */
export function bearerChallenge(config: VaultAuthorizationConfig): string {
  return `Bearer authorization="${config.authorityHost()}/${config.tenantId}", resource="${KEY_VAULT_RESOURCE}"`;
}

function unauthorized(config: VaultAuthorizationConfig, message: string): VaultCaller {
  return {
    ok: false,
    reply: keyVaultError(401, 'Unauthorized', message, {
      headers: { 'WWW-Authenticate': bearerChallenge(config) },
    }),
  };
}

/**
 * Authenticates a vault request: a Bearer JWT signed by the sandbox authority, for the
 * vault audience, from the vault's tenant, within its lifetime. Anything else is 401
 * with the challenge (Key Vault answers invalid tokens as it answers missing ones).
 */
export async function authenticateVaultCaller(
  config: VaultAuthorizationConfig,
  authorization: string | undefined,
): Promise<VaultCaller> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (match === null) {
    return unauthorized(config, 'AKV10000: Request is missing a Bearer or PoP token.');
  }
  try {
    const { payload } = await jwtVerify(match[1]!, createLocalJWKSet(config.issuer.jwks()), {
      algorithms: ['RS256'],
      audience: [KEY_VAULT_RESOURCE, `${KEY_VAULT_RESOURCE}/`],
      issuer: graphTokenIssuer(config.tenantId),
    });
    if (payload['tid'] !== config.tenantId) {
      return unauthorized(config, 'AKV10032: Invalid issuer. The token is for another tenant.');
    }
    const appId = payload['appid'];
    if (typeof appId !== 'string') {
      return unauthorized(config, 'AKV10022: Invalid token: no application id.');
    }
    return { ok: true, appId };
  } catch (error) {
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
      return unauthorized(config, `AKV10022: Invalid audience. Expected ${KEY_VAULT_RESOURCE}.`);
    }
    if (error instanceof joseErrors.JWTExpired) {
      return unauthorized(config, 'AKV10010: Token is expired.');
    }
    return unauthorized(config, 'AKV10000: Token validation failed.');
  }
}
