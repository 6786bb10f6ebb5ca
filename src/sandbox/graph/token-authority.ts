import { randomUUID } from 'node:crypto';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from './access-token-issuer.js';
import type { AccessTokenIssuer } from './access-token-issuer.js';
import type { GraphReply } from './graph-error.js';
import type { GraphSandboxClient } from './graph-sandbox-types.js';
import { ENTRA_ROLE_TEMPLATE_IDS } from './permissions.js';

/** What the token authority needs to know about the sandbox. */
export interface TokenAuthorityConfig {
  tenantId: string;
  /** Tenant names accepted besides the id (verified domains, as Entra ID accepts them). */
  tenantAliases(): readonly string[];
  authority(): string;
  graphEndpoint(): string;
  clients: ReadonlyMap<string, GraphSandboxClient>;
  issuer: AccessTokenIssuer;
  /** How long the tokens it issues now last (default: Entra ID's). */
  tokenLifetimeSeconds?(): number;
  /** The sandbox's clock (a test's virtual one): a secret expires on it, as tokens do. */
  now?(): number;
}

/**
 * The OpenID configuration of a tenant, also the JSON behind MSAL's `authorityMetadata`
 * (msal-common `isOpenIdConfigResponse` reads authorization_endpoint, token_endpoint,
 * issuer, jwks_uri; end_session_endpoint is optional).
 */
export function openIdConfiguration(authority: string, tenant: string): Record<string, unknown> {
  const base = `${authority}/${tenant}`;
  return {
    token_endpoint: `${base}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: [
      'client_secret_post',
      'client_secret_basic',
      'private_key_jwt',
    ],
    jwks_uri: `${base}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer: `${base}/v2.0`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    tenant_region_scope: 'EU',
    cloud_instance_name: 'sandbox.local',
  };
}

/** Whether `tenant` names this sandbox's tenant. */
export function isKnownTenant(config: TokenAuthorityConfig, tenant: string): boolean {
  const name = tenant.toLowerCase();
  return (
    name === config.tenantId.toLowerCase() ||
    config.tenantAliases().some((a) => a.toLowerCase() === name)
  );
}

/** An Entra ID style OAuth error body (`error`, `error_description` with an AADSTS code). */
export function oauthError(
  status: number,
  error: string,
  aadsts: number,
  description: string,
): GraphReply {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date().toISOString();
  return {
    status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store, no-cache',
    },
    body: {
      error,
      error_description: `AADSTS${aadsts}: ${description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
      error_codes: [aadsts],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
    },
  };
}

function clientCredentials(
  form: URLSearchParams,
  authorization: string | undefined,
): { id: string; secret: string } {
  if (authorization?.startsWith('Basic ') === true) {
    const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      return {
        id: decodeURIComponent(decoded.slice(0, colon)),
        secret: decodeURIComponent(decoded.slice(colon + 1)),
      };
    }
  }
  return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
}

/**
 * `POST /{tenant}/oauth2/v2.0/token`, client credentials only. Checks tenant, client,
 * secret (never echoed) and a `{resource}/.default` scope for this Graph endpoint.
 */
export async function handleTokenRequest(
  config: TokenAuthorityConfig,
  tenant: string,
  form: URLSearchParams,
  authorization: string | undefined,
): Promise<GraphReply> {
  if (!isKnownTenant(config, tenant)) {
    return oauthError(
      400,
      'invalid_request',
      90002,
      `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
    );
  }
  if (form.get('grant_type') !== 'client_credentials') {
    return oauthError(
      400,
      'unsupported_grant_type',
      70003,
      'The app requested an unsupported grant type. The sandbox serves client_credentials only.',
    );
  }
  const credentials = clientCredentials(form, authorization);
  const client = config.clients.get(credentials.id);
  if (client === undefined) {
    return oauthError(
      401,
      'invalid_client',
      700016,
      `Application with identifier '${credentials.id}' was not found in the directory '${config.tenantId}'.`,
    );
  }
  if (credentials.secret === '') {
    return oauthError(
      401,
      'invalid_client',
      7000216,
      "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.",
    );
  }
  if (credentials.secret !== client.secret) {
    return oauthError(
      401,
      'invalid_client',
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${client.clientId}'.`,
    );
  }
  const now = config.now?.() ?? Date.now();
  if (client.secretExpiresAt !== undefined && now >= client.secretExpiresAt) {
    return oauthError(
      401,
      'invalid_client',
      7000222,
      `The provided client secret keys for app '${client.clientId}' are expired. Visit the Azure portal to create new keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds.`,
    );
  }
  const scopes = (form.get('scope') ?? '').split(' ').filter((s) => s.length > 0);
  const resourceScopes = scopes.filter((s) => !['openid', 'profile', 'offline_access'].includes(s));
  const scope = resourceScopes[0];
  if (resourceScopes.length !== 1 || scope === undefined || !scope.endsWith('/.default')) {
    return oauthError(
      400,
      'invalid_scope',
      1002012,
      `The provided value for scope ${scopes.join(' ')} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  }
  const resource = scope.slice(0, -'/.default'.length).replace(/\/+$/, '');
  if (resource !== config.graphEndpoint()) {
    return oauthError(
      400,
      'invalid_resource',
      500011,
      `The resource principal named ${resource} was not found in the tenant named ${config.tenantId}.`,
    );
  }
  const lifetime = config.tokenLifetimeSeconds?.() ?? ACCESS_TOKEN_LIFETIME_SECONDS;
  const accessToken = await config.issuer.issue(
    {
      tenantId: config.tenantId,
      clientId: client.clientId,
      roles: client.roles,
      wids: (client.directoryRoles ?? []).map((name) => ENTRA_ROLE_TEMPLATE_IDS[name]),
      audience: config.graphEndpoint(),
      issuer: graphTokenIssuer(config.tenantId),
    },
    lifetime,
  );
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store, no-cache',
    },
    body: {
      token_type: 'Bearer',
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: accessToken,
    },
  };
}

/** The `iss` of Graph access tokens (v1 tokens, as Graph receives them). */
export function graphTokenIssuer(tenantId: string): string {
  return `https://sts.windows.net/${tenantId}/`;
}
