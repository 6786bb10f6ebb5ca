/** Callers waiting for an instance that does not exist yet (the driver's `whenStarted`). */
export class StartWaiters {
  private readonly waiters = new Map<string, Array<(error?: Error) => void>>();

  /** Resolves at `started(instanceId)`, rejects at `failAll`. */
  wait(instanceId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiting = this.waiters.get(instanceId) ?? [];
      this.waiters.set(instanceId, waiting);
      waiting.push((error) => (error === undefined ? resolve() : reject(error)));
    });
  }

  started(instanceId: string): void {
    this.settle(instanceId, undefined);
  }

  failAll(errorFor: (instanceId: string) => Error): void {
    for (const instanceId of [...this.waiters.keys()])
      this.settle(instanceId, errorFor(instanceId));
  }

  private settle(instanceId: string, error: Error | undefined): void {
    const waiting = this.waiters.get(instanceId);
    if (waiting === undefined) return;
    this.waiters.delete(instanceId);
    for (const settle of waiting) settle(error);
  }
}
