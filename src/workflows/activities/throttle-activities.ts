import {
  THROTTLE_HOLD_DEFAULT_MINUTES,
  throttleHoldDelayMs,
  type StepThrottling,
  type ThrottleHolds,
} from '../../domain/throttle-hold';
import { runActivity, type ActivityResult } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';

/** A request's question after a step met TARGET_THROTTLED: how long does it wait, if at all? */
export interface ThrottleHoldInput {
  connector: string;
  requestId: string;
  /** What the step's error said of the throttling. */
  throttling: StepThrottling;
  /** The request's throttling so far, the failed call's own wait included. */
  holds: ThrottleHolds;
}

export type ThrottleHoldAnswer =
  /** The request waits this long, then runs the step again. */
  | { delayMs: number }
  /** It has waited as long as it may (the connector's `maxThrottleHoldMinutes`): the step fails. */
  | { maxMinutes: number };

/**
 * The activities of throttling holds (DESIGN invariant 8, src/domain/throttle-hold.ts): the
 * connector's limit applied to a request's throttling, and the hold counted in the metrics as
 * time spent waiting on throttling, when it begins.
 */
export function throttleActivities(services: ServicesProvider) {
  return {
    async throttleHold(input: ThrottleHoldInput): Promise<ActivityResult<ThrottleHoldAnswer>> {
      return runActivity('throttleHold', services, async (s) => {
        const maxMinutes =
          s.registry.settings(input.connector)?.maxThrottleHoldMinutes ??
          THROTTLE_HOLD_DEFAULT_MINUTES;
        const delayMs = throttleHoldDelayMs(input.throttling, input.holds, maxMinutes * 60_000);
        if (delayMs === undefined) return { maxMinutes };
        s.metrics.throttleWaited(input.connector, delayMs);
        s.logger.warn(`connector ${input.connector} throttles: request held ${delayMs} ms`, {
          connector: input.connector,
          requestId: input.requestId,
        });
        return { delayMs };
      });
    },
  };
}
