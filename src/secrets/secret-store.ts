/**
 * The SecretStore port (DESIGN: src/secrets): client secrets, bearer tokens and transient
 * passwords live here and travel through the service by name only (invariant 5).
 */
export interface SecretStore {
  /** The secret's value; throws `SECRET_NOT_FOUND` naming the secret (never a value). */
  get(name: string): Promise<string>;
  set(name: string, value: string): Promise<void>;
  /** Removes a secret; removing an absent one is not an error. */
  delete(name: string): Promise<void>;
}
