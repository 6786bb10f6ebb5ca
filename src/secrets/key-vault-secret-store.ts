import { DefaultAzureCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/identity';
import { SecretClient } from '@azure/keyvault-secrets';
import type { SecretClientOptions } from '@azure/keyvault-secrets';
import { ProvisioningError } from '../domain/errors';
import { isKeyVaultNotFound, mapKeyVaultError } from './key-vault-error-mapper';
import type { KeyVaultCallContext } from './key-vault-error-mapper';
import { assertKeyVaultSecretName } from './key-vault-secret-name';
import { SecretCache } from './secret-cache';
import type { SecretListing, SecretStore, SecretWriteOptions } from './secret-store';

/** Default per-request timeout (DESIGN invariant 8: every outbound call has one). */
export const DEFAULT_KEY_VAULT_TIMEOUT_MS = 10_000;

export interface KeyVaultSecretStoreOptions {
  /** `https://<vault>.vault.azure.net` (any https URL; a sandbox vault in tests). */
  vaultUrl: string;
  credential: TokenCredential;
  /** How long a read value is reused; a rotated secret is seen within this time. 0 = always read. */
  cacheMs: number;
  /** Clock in ms for the cache (default `Date.now`). */
  clock?: () => number;
  /** Passed to SecretClient: e.g. `tlsOptions: { ca }` and `disableChallengeResourceVerification` for a loopback vault. */
  clientOptions?: SecretClientOptions;
  /** Timeout of each request to the vault and of its token requests (default 10 s). */
  timeoutMs?: number;
}

/**
 * The SecretStore on Azure Key Vault (DESIGN: src/secrets) through `SecretClient`, which
 * runs Key Vault's bearer challenge flow with the given credential. Reads are cached for
 * `cacheMs` and concurrent reads of a name share one request; errors name the secret and
 * the vault, never a value.
 *
 * @example
 * const store = new KeyVaultSecretStore({
 *   vaultUrl: 'https://contoso-prov.vault.azure.net',
 *   credential: new DefaultAzureCredential(),
 *   cacheMs: 60_000,
 * });
 * const token = await store.get('scim-hr-bearer-token');
 */
export class KeyVaultSecretStore implements SecretStore {
  private readonly client: SecretClient;
  private readonly cache: SecretCache;
  /** Each secret's expiry as of its last read or write, by lowercase name (undefined: none). */
  private readonly expiries = new Map<string, Date | undefined>();
  private readonly vaultHost: string;
  private readonly timeoutMs: number;

  constructor(options: KeyVaultSecretStoreOptions) {
    let url: URL;
    try {
      url = new URL(options.vaultUrl);
    } catch {
      throw new ProvisioningError('CONFIG_INVALID', 'the Key Vault URL is not a valid URL', {
        object: 'vaultUrl',
      });
    }
    if (url.protocol !== 'https:') {
      throw new ProvisioningError(
        'CONFIG_INVALID',
        `the Key Vault URL must use https: ${url.host}`,
        {
          object: 'vaultUrl',
        },
      );
    }
    if (!Number.isFinite(options.cacheMs) || options.cacheMs < 0) {
      throw new ProvisioningError('CONFIG_INVALID', 'the Key Vault cache time must be >= 0 ms', {
        object: 'cacheMs',
      });
    }
    this.vaultHost = url.host;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_KEY_VAULT_TIMEOUT_MS;
    this.client = new SecretClient(options.vaultUrl, options.credential, options.clientOptions);
    this.cache = new SecretCache(options.cacheMs, options.clock ?? Date.now);
  }

  /** The secret's current value; `SECRET_NOT_FOUND` naming the secret and the vault when absent. */
  async get(name: string): Promise<string> {
    assertKeyVaultSecretName(name);
    return this.cache.read(name, () =>
      this.call('get', name, async () => {
        const secret = await this.client.getSecret(name, this.requestOptions());
        this.expiries.set(name.toLowerCase(), secret.properties.expiresOn);
        if (secret.value === undefined) {
          throw new ProvisioningError(
            'TARGET_RESPONSE_INVALID',
            `Key Vault ${this.vaultHost} returned secret "${name}" without a value`,
            { object: name },
          );
        }
        return secret.value;
      }),
    );
  }

  /**
   * The secret's `expiresOn` as of the value in use: read with it (and cached as long), so
   * asking costs no extra call to the vault.
   */
  async expiresOn(name: string): Promise<Date | undefined> {
    await this.get(name);
    return this.expiries.get(name.toLowerCase());
  }

  /** Writes a new version of the secret and caches it. */
  async set(name: string, value: string, options: SecretWriteOptions = {}): Promise<void> {
    assertKeyVaultSecretName(name);
    const written = await this.call('set', name, () =>
      this.client.setSecret(name, value, {
        ...this.requestOptions(),
        ...(options.expiresOn === undefined ? {} : { expiresOn: options.expiresOn }),
        ...(options.tags === undefined ? {} : { tags: options.tags }),
      }),
    );
    this.expiries.set(name.toLowerCase(), written.properties.expiresOn);
    this.cache.store(name, value);
  }

  /**
   * Deletes the secret. The vault soft-deletes (purge protection in Azure): sending the
   * delete is enough, the poller is not awaited. An absent secret is not an error.
   */
  async delete(name: string): Promise<void> {
    assertKeyVaultSecretName(name);
    try {
      await this.call('delete', name, async () => {
        try {
          await this.client.beginDeleteSecret(name, this.requestOptions());
        } catch (error) {
          if (!isKeyVaultNotFound(error)) throw error;
        }
      });
    } finally {
      this.cache.evict(name);
      this.expiries.delete(name.toLowerCase());
    }
  }

  /** The secrets named with `prefix` (properties only: a list never carries a value). */
  async list(prefix: string): Promise<SecretListing[]> {
    const wanted = prefix.toLowerCase();
    return this.call('list', `${prefix}*`, async () => {
      const found: SecretListing[] = [];
      for await (const item of this.client.listPropertiesOfSecrets(this.requestOptions())) {
        if (!item.name.toLowerCase().startsWith(wanted)) continue;
        found.push({
          name: item.name,
          ...(item.createdOn === undefined ? {} : { createdOn: item.createdOn }),
          ...(item.expiresOn === undefined ? {} : { expiresOn: item.expiresOn }),
          tags: { ...item.tags },
        });
      }
      return found;
    });
  }

  private requestOptions(): { requestOptions: { timeout: number } } {
    return { requestOptions: { timeout: this.timeoutMs } };
  }

  private async call<T>(
    operation: KeyVaultCallContext['operation'],
    name: string,
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ProvisioningError) throw error;
      throw mapKeyVaultError(error, { operation, name, vaultHost: this.vaultHost });
    }
  }
}

/**
 * The production store: the vault at `vaultUrl` with `DefaultAzureCredential` (the
 * Function app's managed identity in Azure; a user-assigned one when its client id is given).
 *
 * @example
 * const secrets = createKeyVaultSecretStore('https://contoso-prov.vault.azure.net', 60_000);
 */
export function createKeyVaultSecretStore(
  vaultUrl: string,
  cacheMs: number,
  options: { managedIdentityClientId?: string } = {},
): KeyVaultSecretStore {
  const credential =
    options.managedIdentityClientId === undefined
      ? new DefaultAzureCredential()
      : new DefaultAzureCredential({ managedIdentityClientId: options.managedIdentityClientId });
  return new KeyVaultSecretStore({ vaultUrl, credential, cacheMs });
}
