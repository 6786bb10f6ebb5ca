import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  ExportResultCode,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { PrivacySpanProcessor } from '../../src/telemetry/privacy-processors';

/**
 * Serialises each span as an exporter would (name, ids, times, attributes, events) and
 * throws it away: the bench pays the export's CPU without a network (the Azure Monitor
 * exporter would send the same to Application Insights).
 */
class SerialisingExporter implements SpanExporter {
  spans = 0;
  bytes = 0;

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      this.spans++;
      this.bytes += JSON.stringify({
        name: span.name,
        kind: span.kind,
        context: span.spanContext(),
        parent: span.parentSpanContext?.spanId,
        start: span.startTime,
        end: span.endTime,
        status: span.status,
        attributes: span.attributes,
        events: span.events,
      }).length;
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Tracing as the Azure Monitor distro sets it up in Azure (a tracer provider, the async
 * context manager, the W3C propagator, the service's privacy processor before a batching
 * exporter), for the service bench's "telemetry on" run.
 */
export function startBenchTracing(samplingRatio = 1) {
  const exporter = new SerialisingExporter();
  const provider = new BasicTracerProvider({
    // As the distro samples with OTEL_TRACES_SAMPLER=microsoft.fixed_percentage: whole traces.
    ...(samplingRatio < 1
      ? { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplingRatio) }) }
      : {}),
    spanProcessors: [
      new PrivacySpanProcessor({ accountIds: false }),
      new BatchSpanProcessor(exporter),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    /** What was exported, once every span ended so far has been. */
    exported: async () => {
      await provider.forceFlush();
      return { spans: exporter.spans, bytes: exporter.bytes };
    },
    close: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * OpenTelemetry's async context manager alone, with no tracer (`BENCH_TELEMETRY=context`):
 * what propagating the context costs on this Node, whether or not anything is traced.
 */
export function startBenchContext() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    close: () => Promise.resolve(context.disable()),
  };
}
