import { ProvisioningError } from '../domain/errors';
import type { SecretStore } from './secret-store';

/** In-memory secrets for the local host, the CLI against sandboxes, and tests. */
export class LocalSecretStore implements SecretStore {
  private readonly values: Map<string, string>;

  constructor(initial: Record<string, string> = {}) {
    this.values = new Map(Object.entries(initial));
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

  async set(name: string, value: string): Promise<void> {
    this.values.set(name, value);
  }

  async delete(name: string): Promise<void> {
    this.values.delete(name);
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
