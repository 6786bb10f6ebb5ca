import { createNoopMeter, type Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { METER_NAME } from '../../domain/metric-catalogue';

/** The local host's metrics: what it records, and the text of GET /api/metrics. */
export interface LocalMetrics {
  meter: Meter;
  /** Every metric now, in the Prometheus text exposition format (version 0.0.4). */
  prometheusText(): Promise<string>;
  close(): Promise<void>;
}

/** The content type of the Prometheus text format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The same meter as in Azure (`provisioning-service`, the same instruments), on a meter
 * provider of the local host's own, read by OpenTelemetry's Prometheus reader on demand: its
 * serializer writes what a Prometheus server scrapes (cumulative counters `_total`, units in
 * the names, histograms as buckets). The reader serves no port of its own: the API route does.
 * Off (benchmarks without telemetry): a no-op meter, and the text says so.
 */
export function startLocalMetrics(options: { enabled: boolean }): LocalMetrics {
  if (!options.enabled) {
    return {
      meter: createNoopMeter(),
      prometheusText: () => Promise.resolve('# metrics are off on this host\n'),
      close: () => Promise.resolve(),
    };
  }
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [reader] });
  const serializer = new PrometheusSerializer();
  return {
    meter: provider.getMeter(METER_NAME),
    prometheusText: async () => serializer.serialize((await reader.collect()).resourceMetrics),
    close: () => provider.shutdown(),
  };
}
