import { ConfidentialClientApplication, type Configuration } from '@azure/msal-node';
import { decodeJwt } from 'jose';
import type { GraphConnectorSettings } from './graph-settings';
import { daysUntilExpiry, type CredentialExpiry } from '../../domain/credential-expiry';
import { isProvisioningError, ProvisioningError, type ErrorCode } from '../../domain/errors';
import { silentLogger, type Logger } from '../../domain/logger';
import type { SecretStore } from '../../secrets/secret-store';
import { buildAuthorityMetadata, isLoopbackAuthority } from './authority-metadata';
import { clientSecretExpired, clientSecretExpiry } from './client-secret-expiry';
import { mapMsalError } from './msal-error';
import { MsalNetworkClient } from './msal-network-client';

export interface AccessToken {
  accessToken: string;
  expiresOn: Date | null;
  fromCache: boolean;
  /** The token's `roles` claim: the application permissions granted (a hint only). */
  roles: string[];
  /** Whether the token carried a `roles` claim at all, and what it held. */
  rolesClaim: RolesClaim;
}

/**
 * The token's `roles` claim: `absent` when the token has none (Entra ID leaves it out when
 * no application permission is granted), `unreadable` when the token is not a JWT the
 * service can decode (Microsoft calls access tokens opaque to clients).
 */
export type RolesClaim =
  { kind: 'roles'; roles: string[] } | { kind: 'absent' } | { kind: 'unreadable' };

export interface TokenProviderOptions {
  secrets: SecretStore;
  ca?: string;
  logger?: Logger;
  /** The clock the client secret's expiry is read against (default `Date.now`). */
  now?: () => number;
  /** Told of every acquisition that failed, with its code (telemetry). */
  onFailure?: (code: ErrorCode) => void;
}

/** graph-behaviour.md, Tokens: a token is served from cache until 5 minutes before it expires. */
const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;

/**
 * Client-credentials tokens for one connector (spec: Authentication, connector B): one
 * MSAL ConfidentialClientApplication per connector, built on first use with the client
 * secret resolved by name from the SecretStore, its cache serving later calls
 * (graph-behaviour.md, Tokens). Concurrent callers share one acquisition.
 */
export class GraphTokenProvider {
  private app: Promise<ConfidentialClientApplication> | undefined;
  private inFlight: Promise<AccessToken> | undefined;
  private clientSecret: string | undefined;
  private lastToken: string | undefined;
  /** The last token with the secret it was acquired with: every call asks for one. */
  private held:
    { token: AccessToken; secret: string; secretExpiry: CredentialExpiry | undefined } | undefined;
  private readonly network: MsalNetworkClient;
  private readonly logger: Logger;
  readonly authority: string;

  constructor(
    private readonly settings: GraphConnectorSettings,
    private readonly options: TokenProviderOptions,
  ) {
    this.authority = `${settings.authority}/${settings.tenantId}`;
    this.network = new MsalNetworkClient({
      timeoutMs: settings.timeoutMs,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * A valid access token, from MSAL's cache while it lasts. Throws `GRAPH_TOKEN_FAILED`
   * (OAuth error and AADSTS number, never the secret), `GRAPH_CLIENT_SECRET_EXPIRED` (before
   * asking, when the secret is known to have expired) or `SECRET_NOT_FOUND`.
   */
  async acquire(): Promise<AccessToken> {
    // Every Graph call asks for the token: while the secret is the same and the token far
    // from its expiry, it is the one MSAL's cache would give, without MSAL's work. A secret
    // known to have expired is not used even then: acquireOnce fails it with its own code.
    // The secret's expiry was read with the token: no store call more on this path.
    const secret = await this.options.secrets.get(this.settings.clientSecretName);
    const held = this.held;
    const expiresOn = held?.token.expiresOn?.getTime();
    // MSAL dates a token's expiry on this machine's clock.
    const now = Date.now();
    if (
      held?.secret === secret &&
      expiresOn !== undefined &&
      expiresOn - now > RENEW_BEFORE_EXPIRY_MS &&
      !this.passed(held.secretExpiry)
    ) {
      return { ...held.token, fromCache: true };
    }
    this.inFlight ??= this.acquireOnce()
      .catch((error: unknown) => {
        if (isProvisioningError(error)) this.options.onFailure?.(error.code);
        throw error;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /** When the client secret expires, by the secret store or the connector's setting. */
  secretExpiry(): Promise<CredentialExpiry | undefined> {
    return clientSecretExpiry(this.settings, this.options.secrets);
  }

  /** The Authorization header for one Graph call (asked for on every attempt). */
  async authorizationHeader(): Promise<Record<string, string>> {
    const token = await this.acquire();
    return { authorization: `Bearer ${token.accessToken}` };
  }

  /** Values no message or log may contain: the client secret and the current token. */
  knownSecrets(): string[] {
    return [this.clientSecret, this.lastToken].filter(
      (value): value is string => value !== undefined,
    );
  }

  async close(): Promise<void> {
    await this.network.close();
  }

  /** Whether the secret's expiry (none known: never) has passed, on the connector's clock. */
  private passed(expiry: CredentialExpiry | undefined): boolean {
    return expiry !== undefined && daysUntilExpiry(expiry, (this.options.now ?? Date.now)()) <= 0;
  }

  private async acquireOnce(): Promise<AccessToken> {
    const secretExpiry = await this.secretExpiry();
    if (secretExpiry !== undefined && this.passed(secretExpiry)) {
      throw clientSecretExpired(this.settings, secretExpiry);
    }
    const app = await this.application();
    let result;
    try {
      result = await app.acquireTokenByClientCredential({ scopes: this.settings.scopes });
    } catch (error) {
      // A failed acquisition (a wrong secret) must not pin that secret: the next call reads it again.
      this.app = undefined;
      this.held = undefined;
      throw mapMsalError(error, this.errorContext());
    }
    if (result === null || result.accessToken === '') {
      throw new ProvisioningError(
        'GRAPH_TOKEN_FAILED',
        `connector "${this.settings.name}": ${this.authority} returned no access token`,
        {
          object: this.settings.name,
        },
      );
    }
    this.lastToken = result.accessToken;
    if (!result.fromCache) {
      this.logger.debug('access token acquired', {
        connector: this.settings.name,
        authority: this.authority,
      });
    }
    const rolesClaim = readRolesClaim(result.accessToken);
    const token: AccessToken = {
      accessToken: result.accessToken,
      expiresOn: result.expiresOn,
      fromCache: result.fromCache,
      roles: rolesClaim.kind === 'roles' ? rolesClaim.roles : [],
      rolesClaim,
    };
    if (this.clientSecret !== undefined) {
      this.held = { token, secret: this.clientSecret, secretExpiry };
    }
    return token;
  }

  /**
   * The MSAL application for the current client secret. The secret is read from the
   * SecretStore on every acquisition (the store caches it), so a rotated secret is picked
   * up within the store's cache time: a new secret builds a new application.
   */
  private async application(): Promise<ConfidentialClientApplication> {
    const secret = await this.options.secrets.get(this.settings.clientSecretName);
    if (this.app === undefined || secret !== this.clientSecret) {
      if (this.app !== undefined) {
        this.logger.info('client secret changed: token cache renewed', {
          connector: this.settings.name,
        });
      }
      this.clientSecret = secret;
      this.app = Promise.resolve(new ConfidentialClientApplication(this.configuration(secret)));
    }
    return this.app;
  }

  private configuration(clientSecret: string): Configuration {
    const loopback = isLoopbackAuthority(this.settings.authority);
    return {
      auth: {
        clientId: this.settings.clientId,
        clientSecret,
        authority: this.authority,
        // platform-notes.md: a local authority is not discoverable; tell MSAL its endpoints.
        ...(loopback
          ? {
              knownAuthorities: [new URL(this.settings.authority).host],
              authorityMetadata: buildAuthorityMetadata(
                this.settings.authority,
                this.settings.tenantId,
              ),
            }
          : {}),
      },
      system: { networkClient: this.network },
    };
  }

  private errorContext() {
    return {
      connector: this.settings.name,
      authority: this.authority,
      secretName: this.settings.clientSecretName,
      secrets: this.knownSecrets(),
    };
  }
}

/** The `roles` claim, decoded without verification: it is a hint, not a decision. */
export function readRolesClaim(accessToken: string): RolesClaim {
  let roles: unknown;
  try {
    roles = decodeJwt(accessToken).roles;
  } catch {
    return { kind: 'unreadable' };
  }
  if (roles === undefined) return { kind: 'absent' };
  return {
    kind: 'roles',
    roles: Array.isArray(roles)
      ? roles.filter((role): role is string => typeof role === 'string')
      : [],
  };
}
