/**
 * The SecretStore port (DESIGN: src/secrets): client secrets, bearer tokens and transient
 * passwords live here and travel through the service by name only (invariant 5).
 */
export interface SecretStore {
  /** The secret's value; throws `SECRET_NOT_FOUND` naming the secret (never a value). */
  get(name: string): Promise<string>;
  /** A new version; `options` as Key Vault keeps them beside the value (expiry, tags). */
  set(name: string, value: string, options?: SecretWriteOptions): Promise<void>;
  /** Removes a secret; removing an absent one is not an error. */
  delete(name: string): Promise<void>;
  /**
   * When the secret expires, as the store keeps it (Key Vault: the secret's `expiresOn`);
   * undefined when it has no expiry. Throws as `get` does. Stores that keep no expiry leave
   * it out. Key Vault still serves an expired secret: the expiry is what tells.
   */
  expiresOn?(name: string): Promise<Date | undefined>;
  /**
   * The secrets whose name starts with `prefix` (case-insensitive), without their values:
   * what the sweep of request passwords left behind looks at. Stores that cannot list leave
   * it out.
   */
  list?(prefix: string): Promise<SecretListing[]>;
}

export interface SecretWriteOptions {
  /** Key Vault `exp`: shown, not enforced (an expired secret is still served). */
  expiresOn?: Date;
  tags?: Record<string, string>;
}

/** A secret as a listing shows it: never its value. */
export interface SecretListing {
  name: string;
  createdOn?: Date;
  expiresOn?: Date;
  tags: Record<string, string>;
}
