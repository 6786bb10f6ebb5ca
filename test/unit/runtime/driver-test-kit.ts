import * as df from 'durable-functions';
import { afterEach } from 'vitest';
import type { HistoryEvent } from '../../../src/runtime/local-host/history-events';
import {
  OrchestrationDriver,
  type OrchestrationDriverOptions,
} from '../../../src/runtime/local-host/orchestration-driver';

/** A fixed virtual start time. */
export const START = Date.parse('2025-03-01T08:00:00.000Z');
/** Wall-time bound for waitFor in tests. */
export const WAIT_MS = 5_000;

/** Drivers built through `driverWith` are closed after each test of the file that calls it. */
export function useDrivers(): (options: OrchestrationDriverOptions) => OrchestrationDriver {
  const drivers: OrchestrationDriver[] = [];
  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.close()));
  });
  return (options) => {
    const driver = new OrchestrationDriver(options);
    drivers.push(driver);
    return driver;
  };
}

/** How many events of a type the history holds. */
export function count(history: HistoryEvent[], type: number): number {
  return history.filter((event) => event.EventType === type).length;
}

/** durable-functions RetryOptions with a backoff coefficient. */
export function retryOptions(firstMs: number, attempts: number, coefficient = 1): df.RetryOptions {
  const options = new df.RetryOptions(firstMs, attempts);
  options.backoffCoefficient = coefficient;
  return options;
}
