import { ProvisioningError } from '../domain/errors';

/** Key Vault object names: 1-127 characters of [0-9a-zA-Z-]. */
const KEY_VAULT_SECRET_NAME = /^[0-9a-zA-Z-]{1,127}$/;

/**
 * Refuses a name Key Vault would not accept, before any request is made, so the caller
 * learns which name is wrong instead of getting a vault 400 (or a URL that means
 * something else: a `/` would address a version).
 *
 * @example
 * assertKeyVaultSecretName('scim-hr-bearer-token'); // passes
 * assertKeyVaultSecretName('hr_token'); // throws REQUEST_INVALID
 */
export function assertKeyVaultSecretName(name: string): void {
  if (!KEY_VAULT_SECRET_NAME.test(name)) {
    throw new ProvisioningError(
      'REQUEST_INVALID',
      `secret name "${name}" is not valid for Key Vault: use 1-127 letters, digits and hyphens`,
      { object: name },
    );
  }
}
