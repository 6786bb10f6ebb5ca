import type { InvocationContext } from '@azure/functions';
import { propagation, ROOT_CONTEXT, SpanStatusCode, type Context } from '@opentelemetry/api';
import type { Logger } from '../../domain/logger';
import { serviceTracer } from '../../telemetry/tracing';
import { createInvocationContext } from './invocation-context';

/** An activity handler as the driver calls it: the same function `df.app.activity` registers. */
export type ActivityFunction = (input: unknown, context: InvocationContext) => Promise<unknown>;

/** How an activity call ended, in the form its history event records it. */
export type ActivityOutcome =
  { ok: true; result: string } | { ok: false; reason: string; details: string };

export interface ActivityJob {
  instanceId: string;
  name: string;
  /** The input as JSON text (undefined when the orchestrator passed none). */
  input: string | undefined;
  /** The W3C trace context of its orchestration: the activity runs in that trace. */
  traceContext?: Record<string, string>;
  done(outcome: ActivityOutcome): void;
}

/**
 * Runs activity calls in-process with a concurrency limit, each with a fresh
 * InvocationContext. Results travel as JSON text, as through the task hub.
 */
export class ActivityRunner {
  private readonly queue: ActivityJob[] = [];
  private running = 0;
  /**
   * The parent context of each orchestration's activities, by the trace context the instance
   * carries (one object per instance): parsed once per instance, not once per activity.
   */
  private readonly parents = new WeakMap<Record<string, string>, Context>();
  private readonly drained: Array<() => void> = [];

  constructor(
    private readonly activities: Readonly<Record<string, ActivityFunction>>,
    private readonly maxConcurrent: number,
    private readonly logger: Logger,
    private readonly onSettled: () => void,
  ) {}

  /** Whether an activity is registered under this name. */
  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.activities, name);
  }

  /** Queued or running calls. */
  get busy(): boolean {
    return this.running > 0 || this.queue.length > 0;
  }

  enqueue(job: ActivityJob): void {
    this.queue.push(job);
    this.pump();
  }

  /** Resolves when no call is queued or running. */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private pump(): void {
    while (this.running < this.maxConcurrent) {
      const job = this.queue.shift();
      if (job === undefined) return;
      this.running += 1;
      const settled = () => {
        this.running -= 1;
        this.pump();
        if (!this.busy) for (const resolve of this.drained.splice(0)) resolve();
        this.onSettled();
      };
      // Not `finally`, which adds two promises of its own; a failure stays unhandled, as it was.
      void this.run(job).then(settled, (error: unknown) => {
        settled();
        throw error;
      });
    }
  }

  /**
   * One activity call, as the Functions host runs it with Durable's distributed tracing: a
   * span `activity:<name>` in its orchestration's trace, active while the activity runs (its
   * outbound calls are its children). The span's callback chains on the call rather than
   * being an async function of its own: one promise and one microtask fewer per call.
   */
  private async run(job: ActivityJob): Promise<void> {
    const parent = this.parentOf(job.traceContext);
    await serviceTracer().startActiveSpan(`activity:${job.name}`, {}, parent, (span) =>
      this.execute(job).then((outcome) => {
        if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        job.done(outcome);
      }),
    );
  }

  private parentOf(traceContext: Record<string, string> | undefined): Context {
    if (traceContext === undefined) return ROOT_CONTEXT;
    let parent = this.parents.get(traceContext);
    if (parent === undefined) {
      parent = propagation.extract(ROOT_CONTEXT, traceContext);
      this.parents.set(traceContext, parent);
    }
    return parent;
  }

  private async execute(job: ActivityJob): Promise<ActivityOutcome> {
    const activity = this.activities[job.name];
    let outcome: ActivityOutcome;
    try {
      if (activity === undefined) throw new Error(`activity "${job.name}" is not registered`);
      const context = createInvocationContext(job.name, this.logger, {
        instanceId: job.instanceId,
      });
      const input: unknown = job.input === undefined ? undefined : JSON.parse(job.input);
      const result = await activity(input, context);
      // A function returning nothing reaches the orchestrator as null.
      outcome = { ok: true, result: JSON.stringify(result) ?? 'null' };
    } catch (error) {
      outcome = activityFailure(job.name, error);
    }
    return outcome;
  }
}

/**
 * A thrown error as the host records it: the message survives, the class, code and
 * properties do not (platform-notes.md). The orchestrator sees
 * `new Error(`${Reason} \n ${Details}`)` (TaskOrchestrationExecutor.setTaskValue); the
 * stack stays out so that nothing but the message leaves the activity.
 */
export function activityFailure(name: string, error: unknown): ActivityOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    reason: `Activity function '${name}' failed: ${message}`,
    details: JSON.stringify({ Message: message }),
  };
}
