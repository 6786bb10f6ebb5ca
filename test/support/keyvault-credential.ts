import { ClientSecretCredential } from '@azure/identity';
import type { AccessToken, TokenCredential } from '@azure/identity';
import type { SecretClientOptions } from '@azure/keyvault-secrets';
import { DEFAULT_KEY_VAULT_CLIENT } from '../../src/sandbox/keyvault/index.js';
import type { KeyVaultSandbox, KeyVaultSandboxClient } from '../../src/sandbox/keyvault/index.js';

/**
 * A real credential against the sandbox's token authority: @azure/identity's
 * ClientSecretCredential (MSAL client credentials) over HTTPS, trusting the sandbox's
 * certificate through `tlsOptions`, without instance discovery (no public endpoint).
 */
export function sandboxCredential(
  sandbox: KeyVaultSandbox,
  client: Pick<KeyVaultSandboxClient, 'clientId' | 'secret'> = DEFAULT_KEY_VAULT_CLIENT,
): TokenCredential {
  return new ClientSecretCredential(sandbox.tenantId, client.clientId, client.secret, {
    authorityHost: sandbox.authorityHost,
    disableInstanceDiscovery: true,
    tlsOptions: { ca: sandbox.ca },
    retryOptions: { maxRetries: 0 },
  });
}

/** SecretClient options for the loopback vault: trust its certificate, skip the `*.vault.azure.net` check, no retries. */
export function sandboxClientOptions(sandbox: KeyVaultSandbox): SecretClientOptions {
  return {
    tlsOptions: { ca: sandbox.ca },
    disableChallengeResourceVerification: true,
    retryOptions: { maxRetries: 0 },
  };
}

/** A credential that always presents the given token (for tokens the vault must refuse). */
export function fixedTokenCredential(token: string): TokenCredential {
  return {
    getToken: async (): Promise<AccessToken> => ({
      token,
      expiresOnTimestamp: Date.now() + 3_600_000,
    }),
  };
}
