import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/domain/logger';
import {
  ActivityRunner,
  type ActivityOutcome,
} from '../../../../src/runtime/local-host/activity-runner';
import { captureTraces, type TraceCapture } from '../../../support/trace-capture';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

/** Runs one activity that makes an outbound-call span, in the trace of `traceparent`. */
async function runTraced(activitySpans: boolean): Promise<ActivityOutcome> {
  const runner = new ActivityRunner(
    {
      readMemberships: async () => {
        const span = trace.getTracer('test').startSpan('GET');
        span.end();
        return Promise.resolve({ ok: true });
      },
    },
    1,
    silentLogger,
    () => undefined,
    activitySpans,
  );
  return new Promise((resolve) => {
    runner.enqueue({
      instanceId: 'request-1',
      name: 'readMemberships',
      input: '{}',
      traceContext: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
      done: resolve,
    });
  });
}

describe('activity calls in the request trace', () => {
  let capture: TraceCapture | undefined;
  afterEach(async () => {
    await capture?.close();
    capture = undefined;
  });

  it('makes a span per activity call, as the Functions host does, its calls its children', async () => {
    capture = captureTraces();
    const outcome = await runTraced(true);
    expect(outcome).toEqual({ ok: true, result: '{"ok":true}' });
    const spans = capture.spans();
    const activity = spans.find((span) => span.name === 'activity:readMemberships');
    const call = spans.find((span) => span.name === 'GET');
    expect(activity?.spanContext().traceId).toBe(TRACE_ID);
    expect(activity?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(call?.parentSpanContext?.spanId).toBe(activity?.spanContext().spanId);
  });

  it("without activity spans, the worker's calls still join the orchestration's trace", async () => {
    capture = captureTraces();
    const outcome = await runTraced(false);
    expect(outcome).toEqual({ ok: true, result: '{"ok":true}' });
    const spans = capture.spans();
    expect(spans.map((span) => span.name)).toEqual(['GET']);
    expect(spans[0]?.spanContext().traceId).toBe(TRACE_ID);
    expect(spans[0]?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
  });
});
