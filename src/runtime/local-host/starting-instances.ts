/**
 * The instances started whose first activity (or timer) has not ended yet: work the host
 * took in that has not got under way. The queue poller waits on it before it takes in more
 * (`whenFewer`), so that the continuations of requests already under way (their next
 * activities, their episodes) are not queued behind a flood of new ones.
 */
export class StartingInstances {
  private readonly ids = new Set<string>();
  private readonly waiters: Array<{ limit: number; resolve: () => void }> = [];

  get size(): number {
    return this.ids.size;
  }

  add(instanceId: string): void {
    this.ids.add(instanceId);
  }

  /** The instance got past its first activity or timer, ended, or was never started. */
  delete(instanceId: string): void {
    if (!this.ids.delete(instanceId)) return;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]!;
      if (this.ids.size >= waiter.limit) continue;
      this.waiters.splice(i, 1);
      waiter.resolve();
    }
  }

  /** Resolves once fewer than `limit` instances are starting (at once when they are). */
  whenFewer(limit: number): Promise<void> {
    if (this.ids.size < limit) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ limit, resolve }));
  }

  /** Releases every waiter (the driver closes: nothing will start any more). */
  releaseAll(): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }
}
