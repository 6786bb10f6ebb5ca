import type { OrchestrationContext } from 'durable-functions';
import type { ProbeAnswer, ProbeInput } from '../activities/quarantine-activities';
import { ACTIVITIES } from '../names';
import { callActivity, waitFor, type Step } from './activity-calls';

/** What a connector's probe ends with. */
export interface ProbeReport {
  connector: string;
  epoch: number;
  /** Whether the probe released the connector (false: it was released otherwise, or quarantined anew). */
  released: boolean;
}

/** After a probe that could not run (storage unavailable), the next try: in a minute. */
const RETRY_MS = 60_000;

/**
 * The probe of one quarantine of one connector (issue 14), one instance per quarantine
 * (`quarantine-probe-<connector>-<epoch>`), so it holds however many workers run: it
 * waits on durable timers until each probe is due, probes, and ends once the connector is
 * released, by a probe that succeeded or by an operator.
 */
export function* connectorProbeOrchestrator(context: OrchestrationContext): Step<ProbeReport> {
  const { connector, epoch } = context.df.getInput<{ connector: string; epoch: number }>();
  for (;;) {
    const now = context.df.currentUtcDateTime.getTime();
    const input: ProbeInput = { connector, epoch, at: new Date(now).toISOString() };
    const answer = yield* callActivity<ProbeAnswer>(context, ACTIVITIES.probeConnector, input);
    if (answer.ok && answer.value.done) {
      return { connector, epoch, released: answer.value.released };
    }
    const next =
      answer.ok && !answer.value.done ? Date.parse(answer.value.nextProbeAt) : now + RETRY_MS;
    context.df.setCustomStatus({ connector, epoch, nextProbeAt: new Date(next).toISOString() });
    yield* waitFor(context, Math.max(1_000, next - now));
  }
}
