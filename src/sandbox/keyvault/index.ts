export { startKeyVaultSandbox } from './start-key-vault-sandbox.js';
export { DEFAULT_KEY_VAULT_CLIENT, DEFAULT_KEY_VAULT_TENANT_ID } from './key-vault-defaults.js';
export { KEY_VAULT_RESOURCE } from './vault-authorization.js';
export type {
  KeyVaultFault,
  KeyVaultRequestRecord,
  KeyVaultSandbox,
  KeyVaultSandboxClient,
  KeyVaultSandboxOptions,
  SandboxTokenRequest,
  SecretPermission,
} from './key-vault-sandbox-types.js';
