import { ProvisioningError } from '../../domain/errors';
import type { SecretListing, SecretStore, SecretWriteOptions } from '../../secrets/secret-store';
import { readStateFile, writeStateFile } from '../state-file';

/**
 * The local host's secret store when it keeps its state: values stay in memory (a request's
 * password never touches the disk), but the names of the secrets set and not yet deleted
 * are kept in the state folder. After a restart, such a secret is gone: asking for it
 * fails with SECRET_LOST, so that the step that needed it fails saying so, rather than
 * taking the missing secret for one an earlier run used and deleted (SECRET_NOT_FOUND).
 */
export class RestartAwareSecrets implements SecretStore {
  private readonly pending: Set<string>;
  private readonly lost: Set<string>;

  constructor(
    private readonly secrets: SecretStore,
    private readonly namesFile: string,
  ) {
    this.lost = new Set(readStateFile<string[]>(namesFile) ?? []);
    this.pending = new Set(this.lost);
  }

  async get(name: string): Promise<string> {
    try {
      return await this.secrets.get(name);
    } catch (error) {
      if (!this.lost.has(name)) throw error;
      throw new ProvisioningError(
        'SECRET_LOST',
        `secret "${name}" was held by the local host before it restarted, and is gone: send the request again`,
        { object: name },
      );
    }
  }

  async expiresOn(name: string): Promise<Date | undefined> {
    await this.get(name);
    return this.secrets.expiresOn?.(name);
  }

  async set(name: string, value: string, options?: SecretWriteOptions): Promise<void> {
    this.pending.add(name);
    this.save();
    await this.secrets.set(name, value, options);
  }

  async list(prefix: string): Promise<SecretListing[]> {
    return (await this.secrets.list?.(prefix)) ?? [];
  }

  async delete(name: string): Promise<void> {
    await this.secrets.delete(name);
    this.lost.delete(name);
    if (this.pending.delete(name)) this.save();
  }

  private save(): void {
    writeStateFile(this.namesFile, [...this.pending]);
  }
}
