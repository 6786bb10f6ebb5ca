import {
  DataPointType,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import type { Meter } from '@opentelemetry/api';
import { METER_NAME } from '../../src/domain/metric-catalogue';
import { ServiceMetrics } from '../../src/telemetry/service-metrics';

/** A reader that exports nothing by itself: the test collects when it wants to look. */
class CollectingReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One data point as a test reads it: the value, or a histogram's count and sum. */
export interface CollectedPoint {
  attributes: Record<string, unknown>;
  value?: number;
  count?: number;
  sum?: number;
}

export interface CollectedMetric {
  name: string;
  unit: string;
  /** The SDK's data point type: SUM (counter), HISTOGRAM, GAUGE. */
  type: string;
  points: CollectedPoint[];
}

/** ServiceMetrics on a meter provider of their own (its meter, for services built on it), and what was recorded on it. */
export function metricsUnderTest(): {
  metrics: ServiceMetrics;
  meter: Meter;
  collect(): Promise<CollectedMetric[]>;
  close: () => Promise<void>;
} {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter(METER_NAME);
  return {
    metrics: new ServiceMetrics(meter),
    meter,
    collect: async () => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.map((metric) => ({
          name: metric.descriptor.name,
          unit: metric.descriptor.unit,
          type: DataPointType[metric.dataPointType],
          points: (metric.dataPoints as DataPoint<number | Histogram>[]).map((point) =>
            typeof point.value === 'number'
              ? { attributes: { ...point.attributes }, value: point.value }
              : {
                  attributes: { ...point.attributes },
                  count: point.value.count,
                  sum: point.value.sum ?? 0,
                },
          ),
        })),
      );
    },
    close: () => provider.shutdown(),
  };
}
