import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, errors as joseErrors } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { GraphRequestError } from './graph-error.js';

/** Lifetime Entra ID gives app tokens by default (graph-behaviour.md: Tokens). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3599;

export interface AccessTokenClaims {
  tenantId: string;
  clientId: string;
  roles: readonly string[];
  /** Template ids of the Entra roles the app's service principal holds (`wids`). */
  wids?: readonly string[];
  audience: string;
  issuer: string;
}

/** What Graph reads from a verified token: the app's permissions and Entra roles. */
export interface VerifiedToken {
  /** The `appid` claim: the app the token was issued to ('' when absent). */
  appId: string;
  /** The `roles` claim (empty when absent). */
  roles: string[];
  /** The `wids` claim: template ids of the app's Entra roles (empty when absent). */
  wids: string[];
}

/**
 * Signs and checks the sandbox's access tokens: RS256 JWTs shaped like Entra ID app
 * tokens (`aud`, `iss`, `tid`, `appid`, `roles` when granted, `wids` when the app holds
 * Entra roles, `exp`). Token lifetimes run on the real clock, as MSAL's cache does.
 */
export class AccessTokenIssuer {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly publicJwk: JWK,
  ) {}

  static async create(): Promise<AccessTokenIssuer> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    return new AccessTokenIssuer(privateKey, publicKey, {
      ...jwk,
      kid: randomUUID(),
      use: 'sig',
      alg: 'RS256',
    });
  }

  /** The JSON Web Key Set served at the authority's `jwks_uri`. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  /** Signs a token for `claims`, valid for `lifetimeSeconds` (Entra ID's default when not given). */
  async issue(
    claims: AccessTokenClaims,
    lifetimeSeconds: number = ACCESS_TOKEN_LIFETIME_SECONDS,
  ): Promise<string> {
    return new SignJWT({
      tid: claims.tenantId,
      appid: claims.clientId,
      azp: claims.clientId,
      idtyp: 'app',
      ver: '1.0',
      ...(claims.roles.length === 0 ? {} : { roles: [...claims.roles] }),
      ...(claims.wids === undefined || claims.wids.length === 0 ? {} : { wids: [...claims.wids] }),
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.publicJwk.kid ?? '' })
      .setIssuer(claims.issuer)
      .setAudience(claims.audience)
      .setSubject(claims.clientId)
      .setJti(randomUUID())
      .setIssuedAt()
      .setNotBefore('0s')
      .setExpirationTime(`${lifetimeSeconds}s`)
      .sign(this.privateKey);
  }

  /**
   * Checks signature, lifetime, audience, issuer and tenant; any failure is Graph's 401
   * `InvalidAuthenticationToken`. Returns the token's `roles` and `wids` (empty when absent).
   */
  async verify(
    token: string,
    expected: { audience: string; issuer: string; tenantId: string },
  ): Promise<VerifiedToken> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: ['RS256'],
        audience: expected.audience,
        issuer: expected.issuer,
      });
      if (payload['tid'] !== expected.tenantId)
        throw invalidToken('Access token validation failure. Invalid tenant.');
      const appId = typeof payload['appid'] === 'string' ? payload['appid'] : '';
      return { appId, roles: stringList(payload['roles']), wids: stringList(payload['wids']) };
    } catch (error) {
      if (error instanceof GraphRequestError) throw error;
      if (error instanceof joseErrors.JWTExpired) {
        throw invalidToken('Lifetime validation failed, the token is expired.');
      }
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        throw invalidToken('Access token validation failure. Invalid audience.');
      }
      throw invalidToken('Access token validation failure.');
    }
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** 401 `InvalidAuthenticationToken` (graph-behaviour.md: Errors). */
export function invalidToken(message: string): GraphRequestError {
  return new GraphRequestError(401, 'InvalidAuthenticationToken', message, {
    headers: { 'WWW-Authenticate': 'Bearer realm="", error="invalid_token"' },
  });
}
