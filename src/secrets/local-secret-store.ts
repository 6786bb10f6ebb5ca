import { ProvisioningError } from '../domain/errors';
import type { SecretListing, SecretStore, SecretWriteOptions } from './secret-store';

/** In-memory secrets for the local host, the CLI against sandboxes, and tests. */
export class LocalSecretStore implements SecretStore {
  private readonly values: Map<string, string>;
  private readonly expiries = new Map<string, Date>();
  private readonly written = new Map<string, { createdOn: Date; tags: Record<string, string> }>();

  constructor(initial: Record<string, string> = {}) {
    this.values = new Map(Object.entries(initial));
  }

  async expiresOn(name: string): Promise<Date | undefined> {
    await this.get(name);
    return this.expiries.get(name);
  }

  /**
   * Gives a secret an expiry (undefined: none), as Key Vault keeps one beside the value.
   *
   * @example
   * await store.expireOn('entra-client-secret', new Date('2026-12-01T00:00:00Z'));
   */
  async expireOn(name: string, expiresOn: Date | undefined): Promise<void> {
    if (expiresOn === undefined) this.expiries.delete(name);
    else this.expiries.set(name, expiresOn);
  }

  async get(name: string): Promise<string> {
    const value = this.values.get(name);
    if (value === undefined) {
      throw new ProvisioningError(
        'SECRET_NOT_FOUND',
        `secret "${name}" not found in the local secret store`,
        {
          object: name,
        },
      );
    }
    return value;
  }

  /** A new value has no expiry until one is given, as a new Key Vault version. */
  async set(name: string, value: string, options: SecretWriteOptions = {}): Promise<void> {
    this.values.set(name, value);
    this.expiries.delete(name);
    if (options.expiresOn !== undefined) this.expiries.set(name, options.expiresOn);
    this.written.set(name, { createdOn: new Date(), tags: { ...options.tags } });
  }

  async delete(name: string): Promise<void> {
    this.values.delete(name);
    this.expiries.delete(name);
    this.written.delete(name);
  }

  async list(prefix: string): Promise<SecretListing[]> {
    const wanted = prefix.toLowerCase();
    return this.names()
      .filter((name) => name.toLowerCase().startsWith(wanted))
      .map((name) => {
        const written = this.written.get(name);
        const expiresOn = this.expiries.get(name);
        return {
          name,
          ...(written === undefined ? {} : { createdOn: written.createdOn }),
          ...(expiresOn === undefined ? {} : { expiresOn }),
          tags: { ...written?.tags },
        };
      });
  }

  /**
   * The names of the secrets held now, never their values: lets a test or the local host see
   * which transient secrets are still there.
   *
   * @example
   * new LocalSecretStore({ 'scim-token': 't' }).names(); // ['scim-token']
   */
  names(): string[] {
    return [...this.values.keys()];
  }
}
