import type { GraphReply } from '../graph/graph-error.js';
import { keyVaultError, secretNotFound } from './key-vault-error.js';
import type { SecretPermission } from './key-vault-sandbox-types.js';
import { deletedSecretBundle, secretBundle, secretItem } from './secret-bundles.js';
import type { SecretVault, SecretVersionAttributes } from './secret-vault.js';
import { authenticateVaultCaller } from './vault-authorization.js';
import type { VaultAuthorizationConfig } from './vault-authorization.js';

export interface VaultRouteDeps {
  vault: SecretVault;
  vaultUrl(): string;
  auth: VaultAuthorizationConfig;
  /** The caller's secret permissions; undefined when the app has no access policy. */
  permissionsOf(appId: string): readonly SecretPermission[] | undefined;
}

export interface VaultRequest {
  method: string;
  /** Path and query, e.g. `/secrets/db/?api-version=7.6`. */
  target: string;
  authorization: string | undefined;
  body: string;
}

/** Key Vault's secret names: 1-127 of [0-9a-zA-Z-]. */
const SECRET_NAME = /^[0-9a-zA-Z-]{1,127}$/;
/** Key Vault's limit on a secret value (25 KB). */
const MAX_VALUE_BYTES = 25 * 1024;
const SECRET_PATH = /^\/secrets\/([^/]+)(?:\/([^/]*))?$/;
const DELETED_PATH = /^\/deletedsecrets\/([^/]+)\/?$/;

type Route =
  | { kind: 'list' }
  | { kind: 'secret'; name: string; version: string | undefined }
  | { kind: 'deleted'; name: string }
  | { kind: 'invalid-name'; name: string }
  | { kind: 'none' };

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function route(path: string): Route {
  if (path === '/secrets' || path === '/secrets/') return { kind: 'list' };
  const secret = SECRET_PATH.exec(path);
  const deleted = secret === null ? DELETED_PATH.exec(path) : null;
  const raw = secret?.[1] ?? deleted?.[1];
  if (raw === undefined) return { kind: 'none' };
  const name = decode(raw);
  if (name === undefined || !SECRET_NAME.test(name)) return { kind: 'invalid-name', name: raw };
  if (deleted !== null) return { kind: 'deleted', name };
  const version = secret?.[2];
  return { kind: 'secret', name, version: version === '' ? undefined : version };
}

function requiredPermission(method: string): SecretPermission | undefined {
  if (method === 'GET') return 'get';
  // PATCH is "update secret" (its attributes): Key Vault's `set` permission covers it.
  if (method === 'PUT' || method === 'PATCH') return 'set';
  if (method === 'DELETE') return 'delete';
  return undefined;
}

function parseJsonObject(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/**
 * `contentType`, `tags` and `attributes` (`enabled`, and `exp` and `nbf` in seconds since
 * the epoch, as the REST API writes them).
 */
function parseAttributes(body: Record<string, unknown>): SecretVersionAttributes {
  const { contentType, tags, attributes } = body;
  const given = (typeof attributes === 'object' && attributes !== null ? attributes : {}) as Record<
    string,
    unknown
  >;
  const time = (value: unknown) => (typeof value === 'number' ? value * 1000 : undefined);
  const expires = time(given.exp);
  const notBefore = time(given.nbf);
  return {
    ...(typeof contentType === 'string' ? { contentType } : {}),
    ...(typeof tags === 'object' && tags !== null ? { tags: tags as Record<string, string> } : {}),
    ...(typeof given.enabled === 'boolean' ? { enabled: given.enabled } : {}),
    ...(expires === undefined ? {} : { expires }),
    ...(notBefore === undefined ? {} : { notBefore }),
  };
}

function parseSecretInput(body: string): ({ value: string } & SecretVersionAttributes) | undefined {
  const parsed = parseJsonObject(body);
  if (parsed === undefined || typeof parsed.value !== 'string') return undefined;
  return { value: parsed.value, ...parseAttributes(parsed) };
}

/**
 * The Key Vault secrets REST subset the SDK uses: GET /secrets (list), GET /secrets/{name}/{version?},
 * PUT /secrets/{name}, PATCH /secrets/{name}/{version} (attributes), DELETE /secrets/{name},
 * GET /deletedsecrets/{name}. Authentication comes first (the challenge flow needs the 401
 * before anything else), then `api-version`, the name, and the caller's access policy. As
 * Key Vault: an expired secret is still served (its `exp` is shown, not enforced); a
 * disabled one is refused (403 `SecretDisabled`).
 */
export async function handleVaultRequest(
  deps: VaultRouteDeps,
  request: VaultRequest,
): Promise<GraphReply> {
  const caller = await authenticateVaultCaller(deps.auth, request.authorization);
  if (!caller.ok) return caller.reply;
  const url = new URL(request.target, 'https://vault.invalid');
  if (!url.searchParams.has('api-version')) {
    return keyVaultError(400, 'BadParameter', 'The api-version query parameter is missing.');
  }
  const target = route(url.pathname);
  if (target.kind === 'none') {
    return keyVaultError(404, 'NotFound', `The sandbox vault serves nothing at ${url.pathname}.`);
  }
  if (target.kind === 'invalid-name') {
    return keyVaultError(
      400,
      'BadParameter',
      `The request URI contains an invalid name: ${target.name}`,
    );
  }
  if (target.kind === 'list') {
    if (request.method !== 'GET') {
      return keyVaultError(405, 'BadParameter', `Method ${request.method} is not allowed here.`);
    }
    if (!(deps.permissionsOf(caller.appId) ?? []).includes('list')) {
      return keyVaultError(
        403,
        'Forbidden',
        `The user, group or application 'appid=${caller.appId}' does not have secrets list permission on key vault '${new URL(deps.vaultUrl()).host}'.`,
        { innerCode: 'AccessDenied' },
      );
    }
    // One page: the sandbox's vaults are small (Key Vault pages by 25 with a nextLink).
    const value = deps.vault
      .list()
      .map(({ secret, version }) => secretItem(deps.vaultUrl(), secret, version));
    return { status: 200, body: { value, nextLink: null } };
  }
  const permission = requiredPermission(request.method);
  const methodAllowed =
    permission !== undefined &&
    (target.kind === 'deleted'
      ? request.method === 'GET'
      : request.method === 'GET' ||
        (request.method === 'PATCH' ? target.version !== undefined : target.version === undefined));
  if (!methodAllowed) {
    return keyVaultError(405, 'BadParameter', `Method ${request.method} is not allowed here.`);
  }
  if (!(deps.permissionsOf(caller.appId) ?? []).includes(permission)) {
    return keyVaultError(
      403,
      'Forbidden',
      `The user, group or application 'appid=${caller.appId}' does not have secrets ${permission} permission on key vault '${new URL(deps.vaultUrl()).host}'.`,
      { innerCode: 'AccessDenied' },
    );
  }
  return target.kind === 'deleted'
    ? getDeleted(deps, target.name)
    : serveSecret(deps, request, target.name, target.version);
}

function getDeleted(deps: VaultRouteDeps, name: string): GraphReply {
  const deleted = deps.vault.getDeleted(name);
  if (deleted === undefined) {
    return keyVaultError(404, 'SecretNotFound', `Deleted Secret not found: ${name}`);
  }
  return { status: 200, body: deletedSecretBundle(deps.vaultUrl(), deleted) };
}

function serveSecret(
  deps: VaultRouteDeps,
  request: VaultRequest,
  name: string,
  version: string | undefined,
): GraphReply {
  if (request.method === 'GET') {
    const found = deps.vault.get(name, version);
    if (found === undefined) return secretNotFound(name);
    if (!found.version.enabled) {
      return keyVaultError(403, 'Forbidden', 'Operation get is not allowed on a disabled secret.', {
        innerCode: 'SecretDisabled',
      });
    }
    return { status: 200, body: secretBundle(deps.vaultUrl(), found.secret, found.version) };
  }
  if (request.method === 'PATCH') {
    const changes = parseJsonObject(request.body);
    if (changes === undefined) {
      return keyVaultError(400, 'BadParameter', 'The request body must be a JSON object.');
    }
    const updated = deps.vault.update(name, version ?? '', parseAttributes(changes));
    if (updated === undefined) return secretNotFound(name);
    // Key Vault answers an update with the attributes, never the value.
    const bundle = secretBundle(deps.vaultUrl(), updated.secret, updated.version);
    delete bundle.value;
    return { status: 200, body: bundle };
  }
  if (request.method === 'DELETE') {
    const deleted = deps.vault.delete(name);
    if (deleted === undefined) return secretNotFound(name);
    return { status: 200, body: deletedSecretBundle(deps.vaultUrl(), deleted) };
  }
  const input = parseSecretInput(request.body);
  if (input === undefined) {
    return keyVaultError(
      400,
      'BadParameter',
      "The request body must be JSON with a string 'value'.",
    );
  }
  if (Buffer.byteLength(input.value) > MAX_VALUE_BYTES) {
    return keyVaultError(
      400,
      'BadParameter',
      'The secret value exceeds the maximum size of 25 KB.',
    );
  }
  const outcome = deps.vault.set(name, input);
  if (outcome.kind === 'deleted') {
    return keyVaultError(
      409,
      'Conflict',
      `Secret ${name} is currently in a deleted but recoverable state, and its name cannot be reused; in this state, the secret can only be recovered or purged.`,
      { innerCode: 'ObjectIsDeletedButRecoverable' },
    );
  }
  return { status: 200, body: secretBundle(deps.vaultUrl(), outcome.secret, outcome.version) };
}
