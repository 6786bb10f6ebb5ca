import * as df from 'durable-functions';
import type { OrchestrationContext, Task } from 'durable-functions';
import { errorFromActivityFailure, type ActivityResult } from '../activity-result';
import type { ActivityName } from '../names';

/**
 * Retries for failures an activity throws (retryable ones: the target was throttled or
 * unavailable after the transport's own retries). Expected failures come back as data.
 */
export const ACTIVITY_RETRY = (() => {
  const options = new df.RetryOptions(2_000, 3);
  options.backoffCoefficient = 2;
  options.maxRetryIntervalInMilliseconds = 10_000;
  return options;
})();

/** The generator an orchestrator delegates to with `yield*`. */
export type Step<T> = Generator<Task, T, unknown>;

/** Calls one activity; a failure that exhausted its retries comes back as data too. */
export function* callActivity<T>(
  context: OrchestrationContext,
  name: ActivityName,
  input: unknown,
): Step<ActivityResult<T>> {
  try {
    return (yield context.df.callActivityWithRetry(
      name,
      ACTIVITY_RETRY,
      input,
    )) as ActivityResult<T>;
  } catch (error) {
    return { ok: false, error: errorFromActivityFailure(error, name) };
  }
}

/** Calls one activity per input in parallel (fan-out, fan-in); empty input, empty answer. */
export function* callActivities<T>(
  context: OrchestrationContext,
  name: ActivityName,
  inputs: readonly unknown[],
): Step<ActivityResult<T>[]> {
  // Task.all([]) throws in durable-functions (platform-notes.md).
  if (inputs.length === 0) return [];
  const tasks = inputs.map((input) =>
    context.df.callActivityWithRetry(name, ACTIVITY_RETRY, input),
  );
  try {
    return (yield context.df.Task.all(tasks)) as ActivityResult<T>[];
  } catch {
    // Task.all fails on the first failure while siblings may still run: wait for each one
    // (already scheduled, so not scheduled again) so that no applied change is lost.
    const results: ActivityResult<T>[] = [];
    for (const task of tasks) {
      try {
        results.push((yield task) as ActivityResult<T>);
      } catch (error) {
        results.push({ ok: false, error: errorFromActivityFailure(error, name) });
      }
    }
    return results;
  }
}

/** Waits on a durable timer (never a sleep: the orchestrator must replay). */
export function* waitFor(context: OrchestrationContext, ms: number): Step<void> {
  const fireAt = new Date(context.df.currentUtcDateTime.getTime() + ms);
  yield context.df.createTimer(fireAt);
}
