export type { SecretStore } from './secret-store';
export { LocalSecretStore } from './local-secret-store';
export { KeyVaultSecretStore, createKeyVaultSecretStore } from './key-vault-secret-store';
export type { KeyVaultSecretStoreOptions } from './key-vault-secret-store';
