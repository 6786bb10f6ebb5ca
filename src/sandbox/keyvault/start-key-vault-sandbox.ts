import { ProvisioningError } from '../../domain/errors.js';
import { AccessTokenIssuer } from '../graph/access-token-issuer.js';
import type { GraphSandboxClient } from '../graph/graph-sandbox-types.js';
import { generateLoopbackCertificate } from '../graph/loopback-certificate.js';
import { startLoopbackHttpsServer } from '../graph/loopback-https-server.js';
import { graphTokenIssuer } from '../graph/token-authority.js';
import { DEFAULT_KEY_VAULT_CLIENT, DEFAULT_KEY_VAULT_TENANT_ID } from './key-vault-defaults.js';
import { createKeyVaultDispatcher } from './key-vault-dispatcher.js';
import type {
  KeyVaultFault,
  KeyVaultRequestRecord,
  KeyVaultSandbox,
  KeyVaultSandboxOptions,
  SecretPermission,
} from './key-vault-sandbox-types.js';
import { SecretVault } from './secret-vault.js';
import { KEY_VAULT_RESOURCE } from './vault-authorization.js';

const ALL_PERMISSIONS: readonly SecretPermission[] = ['get', 'set', 'delete'];
/** Keeps the request log bounded when the sandbox serves a long-running local host. */
const MAX_LOGGED_REQUESTS = 10_000;

/**
 * Starts the Key Vault sandbox: one HTTPS server on 127.0.0.1 (ephemeral port, certificate
 * generated now) serving a client-credentials token authority (the Graph sandbox's,
 * issuing tokens for `https://vault.azure.net`) and the Key Vault secrets REST subset
 * that `SecretClient` uses, with the bearer challenge flow of platform-notes.md.
 *
 * @example
 * const sandbox = await startKeyVaultSandbox();
 * const credential = new ClientSecretCredential(sandbox.tenantId, clientId, secret, {
 *   authorityHost: sandbox.authorityHost, disableInstanceDiscovery: true,
 *   tlsOptions: { ca: sandbox.ca },
 * });
 * const client = new SecretClient(sandbox.vaultUrl, credential, {
 *   disableChallengeResourceVerification: true, tlsOptions: { ca: sandbox.ca },
 * });
 * await sandbox.close();
 */
export async function startKeyVaultSandbox(
  options: KeyVaultSandboxOptions = {},
): Promise<KeyVaultSandbox> {
  const [certificate, issuer] = await Promise.all([
    generateLoopbackCertificate(),
    AccessTokenIssuer.create(),
  ]);
  const tenantId = options.tenantId ?? DEFAULT_KEY_VAULT_TENANT_ID;
  const now = options.now ?? Date.now;
  const clients = new Map<string, GraphSandboxClient>();
  const permissions = new Map<string, SecretPermission[]>();
  for (const client of options.clients ?? [DEFAULT_KEY_VAULT_CLIENT]) {
    // App tokens for Key Vault carry no roles: access comes from the vault's policy.
    clients.set(client.clientId, { clientId: client.clientId, secret: client.secret, roles: [] });
    permissions.set(client.clientId, [...(client.permissions ?? ALL_PERMISSIONS)]);
  }
  const vault = new SecretVault(now);
  const requests: KeyVaultRequestRecord[] = [];
  const stats = { tokenRequests: 0 };
  const faults: (KeyVaultFault & { times: number })[] = [];
  let origin = '';

  const server = await startLoopbackHttpsServer(
    certificate,
    createKeyVaultDispatcher({
      authority: {
        tenantId,
        tenantAliases: () => [],
        authority: () => origin,
        // The authority's one resource: tokens are only issued for the vault audience.
        graphEndpoint: () => KEY_VAULT_RESOURCE,
        clients,
        issuer,
      },
      vault: {
        vault,
        vaultUrl: () => origin,
        auth: { tenantId, authorityHost: () => origin, issuer },
        permissionsOf: (appId) => permissions.get(appId),
      },
      stats,
      record: (entry) => {
        requests.push(entry);
        if (requests.length > MAX_LOGGED_REQUESTS) requests.splice(0, MAX_LOGGED_REQUESTS / 2);
      },
      takeFault: (method) => {
        const index = faults.findIndex((f) => f.method === undefined || f.method === method);
        const fault = faults[index];
        if (fault === undefined) return undefined;
        fault.times -= 1;
        if (fault.times <= 0) faults.splice(index, 1);
        return fault;
      },
    }),
  );
  origin = `https://127.0.0.1:${server.port}`;
  const firstClientId = clients.keys().next().value;

  return {
    tenantId,
    vaultUrl: origin,
    authorityHost: origin,
    ca: certificate.cert,
    requests,
    stats,
    clearRequests: () => {
      requests.length = 0;
    },
    tokenFor: (request = {}) =>
      issuer.issue({
        tenantId: request.tenantId ?? tenantId,
        clientId: request.clientId ?? firstClientId ?? 'sandbox-app',
        roles: [],
        audience: request.audience ?? KEY_VAULT_RESOURCE,
        issuer: graphTokenIssuer(request.tenantId ?? tenantId),
      }),
    setSecret: (name, value, options = {}) => {
      const outcome = vault.set(name, {
        value,
        ...(options.expiresOn === undefined ? {} : { expires: options.expiresOn.getTime() }),
      });
      if (outcome.kind === 'deleted') {
        throw new ProvisioningError(
          'REQUEST_CONFLICT',
          `the Key Vault sandbox holds "${name}" as deleted`,
          { object: name },
        );
      }
      return outcome.version.version;
    },
    currentValue: (name) => vault.get(name)?.version.value,
    isDeleted: (name) => vault.getDeleted(name) !== undefined,
    setClientPermissions: (clientId, granted) => {
      permissions.set(clientId, [...granted]);
    },
    injectFault: (fault) => {
      faults.push({ ...fault, times: fault.times ?? 1 });
    },
    close: () => server.close(),
  };
}
