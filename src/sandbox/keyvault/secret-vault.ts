import { randomUUID } from 'node:crypto';

/** One version of a secret, as the vault stores it. */
export interface StoredSecretVersion {
  version: string;
  value: string;
  contentType?: string;
  tags?: Record<string, string>;
  enabled: boolean;
  /** When it expires (Key Vault `exp`), ms since the epoch: kept and shown, never enforced. */
  expires?: number;
  /** Not valid before (Key Vault `nbf`), ms since the epoch: likewise. */
  notBefore?: number;
  /** ms since the epoch */
  created: number;
  updated: number;
}

/** What a PUT or PATCH may say of a version besides its value. */
export interface SecretVersionAttributes {
  contentType?: string;
  tags?: Record<string, string>;
  enabled?: boolean;
  expires?: number;
  notBefore?: number;
}

/** A secret: the name as first written and its versions, oldest first. */
export interface StoredSecret {
  name: string;
  versions: StoredSecretVersion[];
}

/** A soft-deleted secret: kept, unreadable, and its name not reusable (purge protection). */
export interface DeletedSecret {
  secret: StoredSecret;
  deletedDate: number;
  scheduledPurgeDate: number;
}

/** Soft-delete retention Azure applies by default (and the most purge protection allows). */
export const RETENTION_DAYS = 90;

export type SetSecretOutcome =
  { kind: 'stored'; secret: StoredSecret; version: StoredSecretVersion } | { kind: 'deleted' };

/**
 * The vault's secrets in memory. Names are case-insensitive, as in Key Vault; a PUT adds
 * a version; DELETE moves the secret to the deleted state, where it stays (the sandbox
 * models purge protection: no purge, the name cannot be reused until recovered).
 */
export class SecretVault {
  private readonly live = new Map<string, StoredSecret>();
  private readonly deleted = new Map<string, DeletedSecret>();

  constructor(private readonly now: () => number) {}

  set(name: string, input: { value: string } & SecretVersionAttributes): SetSecretOutcome {
    const key = name.toLowerCase();
    if (this.deleted.has(key)) return { kind: 'deleted' };
    const secret = this.live.get(key) ?? { name, versions: [] };
    const at = this.now();
    const version: StoredSecretVersion = {
      version: randomUUID().replaceAll('-', ''),
      value: input.value,
      enabled: input.enabled ?? true,
      created: at,
      updated: at,
      ...(input.contentType === undefined ? {} : { contentType: input.contentType }),
      ...(input.tags === undefined ? {} : { tags: { ...input.tags } }),
      ...(input.expires === undefined ? {} : { expires: input.expires }),
      ...(input.notBefore === undefined ? {} : { notBefore: input.notBefore }),
    };
    secret.versions.push(version);
    this.live.set(key, secret);
    return { kind: 'stored', secret, version };
  }

  /** The latest version, or the named one (version ids are matched case-insensitively). */
  get(
    name: string,
    version?: string,
  ): { secret: StoredSecret; version: StoredSecretVersion } | undefined {
    const secret = this.live.get(name.toLowerCase());
    if (secret === undefined) return undefined;
    const found =
      version === undefined
        ? secret.versions.at(-1)
        : secret.versions.find((v) => v.version === version.toLowerCase());
    return found === undefined ? undefined : { secret, version: found };
  }

  /** Changes a version's attributes (Key Vault's "update secret"); undefined when it is unknown. */
  update(
    name: string,
    version: string,
    changes: SecretVersionAttributes,
  ): { secret: StoredSecret; version: StoredSecretVersion } | undefined {
    const found = this.get(name, version);
    if (found === undefined) return undefined;
    Object.assign(found.version, changes, { updated: this.now() });
    if (changes.tags !== undefined) found.version.tags = { ...changes.tags };
    return found;
  }

  delete(name: string): DeletedSecret | undefined {
    const key = name.toLowerCase();
    const secret = this.live.get(key);
    if (secret === undefined) return undefined;
    this.live.delete(key);
    const deletedDate = this.now();
    const entry = {
      secret,
      deletedDate,
      scheduledPurgeDate: deletedDate + RETENTION_DAYS * 24 * 3600_000,
    };
    this.deleted.set(key, entry);
    return entry;
  }

  /** Every live secret with its latest version, in the order first written. */
  list(): Array<{ secret: StoredSecret; version: StoredSecretVersion }> {
    return [...this.live.values()].flatMap((secret) => {
      const version = secret.versions.at(-1);
      return version === undefined ? [] : [{ secret, version }];
    });
  }

  getDeleted(name: string): DeletedSecret | undefined {
    return this.deleted.get(name.toLowerCase());
  }
}
