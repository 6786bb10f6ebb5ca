interface CachedValue {
  value: string;
  expiresAt: number;
}

interface PendingRead {
  /** Identifies this load, so that a superseded one does not touch the cache. */
  token: symbol;
  promise: Promise<string>;
}

/**
 * Secret values kept for `ttlMs` (0 keeps nothing), keyed case-insensitively as Key Vault
 * names are. Concurrent reads of one name share one load. A write or eviction wins over
 * a load that was already under way: that load's answer is returned to its callers but
 * not cached, and later reads do not join it.
 */
export class SecretCache {
  private readonly values = new Map<string, CachedValue>();
  private readonly pending = new Map<string, PendingRead>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number,
  ) {}

  /** The cached value while fresh, else the result of `load` (shared with concurrent readers). */
  read(name: string, load: () => Promise<string>): Promise<string> {
    const key = name.toLowerCase();
    const cached = this.values.get(key);
    if (cached !== undefined && this.clock() < cached.expiresAt)
      return Promise.resolve(cached.value);
    if (cached !== undefined) this.values.delete(key);
    const running = this.pending.get(key);
    if (running !== undefined) return running.promise;
    const token = Symbol('load');
    const isCurrent = (): boolean => this.pending.get(key)?.token === token;
    const promise = load().then(
      (value) => {
        if (isCurrent()) this.store(name, value);
        return value;
      },
      (error: unknown) => {
        if (isCurrent()) this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, { token, promise });
    return promise;
  }

  /** Records a value just written; a load under way for the name no longer counts. */
  store(name: string, value: string): void {
    const key = name.toLowerCase();
    this.pending.delete(key);
    if (this.ttlMs <= 0) return;
    this.values.set(key, { value, expiresAt: this.clock() + this.ttlMs });
  }

  /** Forgets the name; a load under way for it no longer counts. */
  evict(name: string): void {
    const key = name.toLowerCase();
    this.pending.delete(key);
    this.values.delete(key);
  }
}
