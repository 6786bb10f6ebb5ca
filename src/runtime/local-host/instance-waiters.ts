import { ProvisioningError } from '../../domain/errors';
import type { OrchestrationState } from '../../workflows/orchestration-client';
import { toOrchestrationState, type DriverInstance } from './driver-instance';

type Waiter = (error?: Error) => void;

/** Callers waiting for instances to finish (the driver's `waitFor`). */
export class InstanceWaiters {
  private readonly waiters = new Map<string, Set<Waiter>>();

  /** Resolves with the final state at `finished`, rejects at `fail` or after `timeoutMs` of wall time. */
  wait(instance: DriverInstance, timeoutMs: number): Promise<OrchestrationState> {
    const { instanceId } = instance;
    return new Promise((resolve, reject) => {
      const waiters = this.waiters.get(instanceId) ?? new Set();
      this.waiters.set(instanceId, waiters);
      const waiter: Waiter = (error) => {
        clearTimeout(timeout);
        waiters.delete(waiter);
        if (error === undefined) resolve(toOrchestrationState(instance));
        else reject(error);
      };
      const timeout = setTimeout(() => {
        const status = instance.runtimeStatus;
        waiter(
          new ProvisioningError(
            'INTERNAL_ERROR',
            `orchestration "${instanceId}" did not finish within ${timeoutMs} ms (status ${status})`,
            { object: instanceId },
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
    });
  }

  /** Ids of the instances someone waits for. */
  waiting(): string[] {
    return [...this.waiters].filter(([, list]) => list.size > 0).map(([id]) => id);
  }

  finished(instanceId: string): void {
    this.settle(instanceId, undefined);
  }

  fail(instanceId: string, error: Error): void {
    this.settle(instanceId, error);
  }

  failAll(errorFor: (instanceId: string) => Error): void {
    for (const instanceId of [...this.waiters.keys()]) this.fail(instanceId, errorFor(instanceId));
  }

  private settle(instanceId: string, error: Error | undefined): void {
    const list = this.waiters.get(instanceId);
    this.waiters.delete(instanceId);
    for (const waiter of [...(list ?? [])]) waiter(error);
  }
}
