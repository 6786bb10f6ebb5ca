import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { PrivacySpanProcessor } from '../../src/telemetry/privacy-processors';

/** Spans exported while a test runs, as an exporter would send them. */
export interface TraceCapture {
  spans(): ReadableSpan[];
  /** Puts the process-wide OpenTelemetry state back as it was (nothing registered). */
  close(): Promise<void>;
}

/**
 * Registers a tracer provider, the async-context manager and the W3C propagator for the
 * process, as the Azure Monitor distro does in Azure, exporting into memory through the
 * service's privacy processor (account IDs allowed or not). Tests share one process
 * (vitest `isolate: false`): `close` unregisters everything.
 */
export function captureTraces(
  options: { accountIds: boolean } = { accountIds: false },
): TraceCapture {
  const exporter = new InMemorySpanExporter();
  const processors: SpanProcessor[] = [
    new PrivacySpanProcessor(options),
    new SimpleSpanProcessor(exporter),
  ];
  const provider = new BasicTracerProvider({ spanProcessors: processors });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    spans: () => exporter.getFinishedSpans(),
    close: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
