export type { SecretStore } from './secret-store';
export { LocalSecretStore } from './local-secret-store';
