import type { QuarantineState } from '../../src/domain/quarantine';
import type { RequestHold, RequestReport } from '../../src/domain/request-report';
import type { TruthEvent } from '../../src/sandbox/truth';
import type { GateAnswer } from '../../src/workflows/activities/quarantine-activities';
import { ACTIVITIES, requestInstanceId } from '../../src/workflows/names';
import { until as pollUntil } from './poll-until';
import { requestActivityCalls, type ServiceBench } from './service-bench';

/** Waits (real time) until `probe` answers something other than undefined: polled closely, as held states pass quickly. */
export function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  return pollUntil(what, probe, { timeoutMs, everyMs: 2 });
}

/** The connector's quarantine once it is quarantined. */
export function untilQuarantined(bench: ServiceBench, connector: string): Promise<QuarantineState> {
  return until(`connector ${connector} quarantined`, async () => {
    const state = await bench.runtime.services.quarantine.get(connector);
    return state?.quarantined === true ? state : undefined;
  });
}

/** The request's hold once it shows one (held states pass quickly: polled closely). */
export function untilHeld(bench: ServiceBench, requestId: string): Promise<RequestHold> {
  return until(`request ${requestId} held`, async () => {
    const state = await bench.runtime.driver.getStatus(requestInstanceId(requestId));
    return (state?.customStatus as RequestReport | undefined)?.hold;
  });
}

/** Waits until each request has ended or is held; answers the ids of those held. */
export async function untilHeldOrDone(
  bench: ServiceBench,
  requestIds: string[],
): Promise<string[]> {
  return until('every request held or done', async () => {
    const held: string[] = [];
    for (const requestId of requestIds) {
      const state = await bench.runtime.driver.getStatus(requestInstanceId(requestId));
      if (state?.runtimeStatus === 'Completed') continue;
      if ((state?.customStatus as RequestReport | undefined)?.hold === undefined) return undefined;
      held.push(requestId);
    }
    return held;
  });
}

/** Runs `action` once the virtual clock reaches `atMs` (at once when it has); answers when it ran. */
export function atVirtualTime(
  bench: ServiceBench,
  atMs: number,
  action: () => void,
): Promise<number> {
  const clock = bench.clock;
  if (!('onAdvance' in clock)) throw new Error('the bench runs on a virtual clock');
  return new Promise((resolve) => {
    if (clock.now() >= atMs) {
      action();
      resolve(clock.now());
      return;
    }
    const stop = clock.onAdvance((now) => {
      if (now < atMs) return;
      stop();
      action();
      resolve(now);
    });
  });
}

/**
 * When the first held request went on (virtual ms): the earliest answer of a request's look
 * at a connector it was held for that found it open.
 */
export function firstResumeAt(bench: ServiceBench, requestIds: string[]): number {
  const resumed = requestIds.flatMap((requestId) =>
    requestActivityCalls(bench, requestId, ACTIVITIES.connectorGate)
      .filter((call) => (call.input as { held?: boolean }).held === true)
      .filter((call) => (call.result as { value?: GateAnswer } | undefined)?.value?.open === true)
      .map((call) => call.answeredAt ?? Number.POSITIVE_INFINITY),
  );
  return Math.min(...resumed);
}

/** How many times each change of the truth log happened, by account and change: 1 each, or doubled. */
export function truthCounts(events: readonly TruthEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const key = `${event.accountId ?? ''} ${event.change} ${event.groupId ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
