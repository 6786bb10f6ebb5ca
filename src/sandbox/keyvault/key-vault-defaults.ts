import type { KeyVaultSandboxClient } from './key-vault-sandbox-types.js';

/** The tenant of a Key Vault sandbox started without `tenantId`. */
export const DEFAULT_KEY_VAULT_TENANT_ID = '0c6f2b7e-41d8-4a93-8e25-9b1d3f7a6c40';

/** The client of a sandbox started without `clients`: get, list, set and delete on secrets (Key Vault Secrets Officer). */
export const DEFAULT_KEY_VAULT_CLIENT: Readonly<KeyVaultSandboxClient> =
  Object.freeze<KeyVaultSandboxClient>({
    clientId: '5a7c1e94-2b3d-4f68-9c0e-7d41b2a8e356',
    secret: 'keyvault-sandbox-client-secret-not-for-production',
    permissions: ['get', 'list', 'set', 'delete'],
  });
