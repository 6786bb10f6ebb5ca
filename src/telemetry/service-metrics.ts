import {
  createNoopMeter,
  ROOT_CONTEXT,
  ValueType,
  type Attributes,
  type Histogram,
  type Meter,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import type { DriftType } from '../domain/drift-finding';
import type { ErrorCode } from '../domain/errors';
import {
  METRIC_CATALOGUE,
  METRIC_NAMES,
  snakeCase,
  type METRIC_DIMENSIONS,
  type MetricDimension,
  type MetricName,
} from '../domain/metric-catalogue';
import type { RequestMeasures } from '../domain/request-measures';

type Catalogue = typeof METRIC_CATALOGUE;
type NamesOf<I> = {
  [M in MetricName]: Catalogue[M]['instrument'] extends I ? M : never;
}[MetricName];
type CounterName = NamesOf<'counter'>;
type HistogramName = NamesOf<'histogram'>;
type GaugeName = NamesOf<'gauge'>;

/** The values a dimension takes: its closed list, or any configured connector's name. */
type ValueOf<D extends MetricDimension> =
  (typeof METRIC_DIMENSIONS)[D]['values'] extends readonly (infer V)[] ? V : string;
type DimensionOf<M extends MetricName> = Catalogue[M]['dimensions'][number];

/**
 * The dimensions a measurement of metric `M` carries, typed from the contract: every listed
 * dimension but `error.type`, which only failures carry. A dimension the contract does not
 * list for the metric, or a value outside its closed list, does not compile.
 */
export type DimensionsOf<M extends MetricName> = {
  [D in Exclude<DimensionOf<M>, 'error.type'>]: ValueOf<D>;
} & ('error.type' extends DimensionOf<M> ? { 'error.type'?: ErrorCode } : unknown);

/** One value of a gauge with its dimensions. */
export interface GaugeReading<M extends GaugeName> {
  value: number;
  dimensions: DimensionsOf<M>;
}

/** What a gauge reads when the meter is collected (every export, every scrape). */
export type GaugeSource<M extends GaugeName> = () => GaugeReading<M>[] | Promise<GaugeReading<M>[]>;

/** The class of a target's answer (`provisioning.status_class`), or why there was none. */
export type StatusClass = ValueOf<'provisioning.status_class'>;

/** Why a bulk message was given up (`provisioning.poison_reason`). */
export type PoisonReason = ValueOf<'provisioning.poison_reason'>;

/**
 * Bucket boundaries by metric: the SDK's default (0 to 10 000) suits milliseconds, these are
 * seconds and read counts as an operator reads them.
 */
const BUCKETS: Partial<Record<HistogramName, number[]>> = {
  'provisioning.step.duration': [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  'provisioning.throttle.wait.duration': [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
  'provisioning.verification.reads': [1, 2, 3, 4, 5, 6, 8, 10, 15],
  'provisioning.verification.visibility.duration': [0.5, 1, 2, 3, 5, 10, 15, 20, 30, 45, 60],
};

/**
 * The service's one meter (`provisioning-service`) with every instrument of the metric
 * contract (src/domain/metric-catalogue.ts), made from the contract's names, instruments,
 * units and descriptions. Each metric has one emission point here; callers pass typed
 * dimensions, so nothing outside the contract can be recorded. Gauges read their sources
 * when the meter is collected.
 *
 * @example
 * const metrics = new ServiceMetrics(meterProvider.getMeter(METER_NAME));
 * metrics.outboundCalls('hr-app')(statusClassOf(429));
 */
export class ServiceMetrics {
  private readonly counters = new Map<MetricName, CounterTally>();
  private readonly histograms = new Map<MetricName, Histogram>();
  private readonly gauges = new Map<MetricName, ObservableGauge>();

  constructor(meter: Meter) {
    for (const name of METRIC_NAMES) {
      const definition = METRIC_CATALOGUE[name];
      const options = { description: definition.description, unit: definition.unit };
      switch (definition.instrument) {
        case 'counter': {
          // A no-op meter (telemetry off) records nothing: then nothing is tallied either.
          if (meter === createNoopMeter()) break;
          const tally = new CounterTally(definition.dimensions);
          meter
            .createObservableCounter(name, { ...options, valueType: ValueType.INT })
            .addCallback((result) => tally.observe(result));
          this.counters.set(name, tally);
          break;
        }
        case 'histogram': {
          const buckets = BUCKETS[name as HistogramName];
          this.histograms.set(
            name,
            meter.createHistogram(name, {
              ...options,
              valueType: ValueType.DOUBLE,
              ...(buckets === undefined ? {} : { advice: { explicitBucketBoundaries: buckets } }),
            }),
          );
          break;
        }
        case 'gauge':
          this.gauges.set(
            name,
            meter.createObservableGauge(name, { ...options, valueType: ValueType.DOUBLE }),
          );
          break;
      }
    }
  }

  /** A request ended: `provisioning.requests`, and each step that ran and its read-back. */
  requestEnded(connector: string, measures: RequestMeasures): void {
    this.add('provisioning.requests', {
      'provisioning.connector': connector,
      'provisioning.outcome': measures.outcome,
      ...(measures.errorType === undefined ? {} : { 'error.type': measures.errorType }),
    });
    for (const step of measures.steps) {
      this.record('provisioning.step.duration', step.seconds, {
        'provisioning.connector': connector,
        'provisioning.action': step.action,
        'provisioning.outcome': step.outcome,
        ...(step.errorType === undefined ? {} : { 'error.type': step.errorType }),
      });
      const read = step.verification;
      if (read === undefined) continue;
      this.record('provisioning.verification.reads', read.reads, {
        'provisioning.connector': connector,
        'provisioning.action': step.action,
      });
      this.record('provisioning.verification.visibility.duration', read.elapsedMs / 1000, {
        'provisioning.connector': connector,
        'provisioning.action': step.action,
        'provisioning.outcome': read.visible ? 'succeeded' : 'failed',
      });
    }
  }

  /**
   * What counts the attempts sent to one connector's target, by the class of each answer: a
   * connector's telemetry takes it once and calls it per attempt, each class's series
   * looked up at its first attempt only (no dimensions made per attempt).
   */
  outboundCalls(connector: string): (statusClass: StatusClass) => void {
    const tally = this.counters.get('provisioning.outbound.calls');
    if (tally === undefined) return () => {};
    const byClass = new Map<StatusClass, () => void>();
    return (statusClass) => {
      let count = byClass.get(statusClass);
      if (count === undefined) {
        const dimensions: DimensionsOf<'provisioning.outbound.calls'> = {
          'provisioning.connector': connector,
          'provisioning.status_class': statusClass,
        };
        count = tally.bind(dimensions);
        byClass.set(statusClass, count);
      }
      count();
    };
  }

  /** Throttling answers from a target (429, or 503 with Retry-After; `$batch` sub-responses). */
  throttled(connector: string, answers = 1): void {
    this.add('provisioning.throttle.responses', { 'provisioning.connector': connector }, answers);
  }

  /** A call's time spent waiting because its target throttled. */
  throttleWaited(connector: string, waitedMs: number): void {
    this.record('provisioning.throttle.wait.duration', waitedMs / 1000, {
      'provisioning.connector': connector,
    });
  }

  tokenFailed(connector: string, code: ErrorCode): void {
    this.add('provisioning.token.failures', {
      'provisioning.connector': connector,
      'error.type': code,
    });
  }

  bulkPoisoned(reason: PoisonReason): void {
    this.add('provisioning.bulk.poisoned', { 'provisioning.poison_reason': reason });
  }

  /** A connector entered quarantine (the connector gate, when it puts one there). */
  quarantineEntered(connector: string, code: ErrorCode): void {
    this.add('provisioning.quarantine.entries', {
      'provisioning.connector': connector,
      'error.type': code,
    });
  }

  /** New differences of one kind a reconciliation found (its one counting place calls this). */
  reconciliationFound(connector: string, type: DriftType, count = 1): void {
    this.add(
      'provisioning.reconciliation.findings',
      { 'provisioning.connector': connector, 'provisioning.finding': snakeCase(type) },
      count,
    );
  }

  /** Messages waiting in the bulk queue and its poison queue. */
  observeBulkBacklog(source: GaugeSource<'provisioning.bulk.backlog'>): void {
    this.observe('provisioning.bulk.backlog', source);
  }

  /** Days until each connector's credential expires. */
  observeCredentialExpiry(source: GaugeSource<'provisioning.secret.time_to_expiry'>): void {
    this.observe('provisioning.secret.time_to_expiry', source);
  }

  /** 1 per connector in quarantine (with why), 0 for the others that may be quarantined. */
  observeQuarantine(source: GaugeSource<'provisioning.connector.quarantined'>): void {
    this.observe('provisioning.connector.quarantined', source);
  }

  /** The share of each paced connector's target quota its pacing used. */
  observeQuotaUtilization(source: GaugeSource<'provisioning.quota.utilization'>): void {
    this.observe('provisioning.quota.utilization', source);
  }

  private add<M extends CounterName>(name: M, dimensions: DimensionsOf<M>, value = 1): void {
    this.counters.get(name)?.add(value, dimensions as Record<string, string | undefined>);
  }

  private record<M extends HistogramName>(
    name: M,
    value: number,
    dimensions: DimensionsOf<M>,
  ): void {
    // An explicit context: by default the SDK looks the running one up in the async-context
    // storage on every record, for exemplars, which sdk-metrics 2.x does not record.
    this.histograms.get(name)?.record(value, dimensions as Record<string, string>, ROOT_CONTEXT);
  }

  private observe<M extends GaugeName>(name: M, source: GaugeSource<M>): void {
    this.gauges.get(name)?.addCallback(async (result: ObservableResult) => {
      for (const reading of await source()) {
        result.observe(reading.value, reading.dimensions as Record<string, string>);
      }
    });
  }
}

/**
 * A counter summed in the process and reported when the meter is collected, as an
 * observable counter: the same monotonic sum, exported alike. An add costs a key of its
 * dimension values in the contract's order and a map lookup, where the SDK's synchronous
 * counter hashes the attributes (sorted keys, JSON) on every add: for
 * `provisioning.outbound.calls`, counted per attempt, that was a good share of what
 * telemetry cost (issue 19). Its series are the contract's closed dimension values and
 * the configured connectors: few, kept for the life of the process as the SDK keeps them.
 */
class CounterTally {
  private readonly sums = new Map<string, { attributes: Attributes; value: number }>();

  constructor(private readonly dimensions: readonly string[]) {}

  add(value: number, dimensions: Record<string, string | undefined>): void {
    // Counts are whole and never fall: anything else is dropped, never added to a sum.
    if (!Number.isInteger(value) || value < 0) return;
    this.sumOf(dimensions).value += value;
  }

  /** Adds one to the series of these dimensions, found at the first call only. */
  bind(dimensions: Record<string, string | undefined>): () => void {
    let sum: { value: number } | undefined;
    return () => {
      sum ??= this.sumOf(dimensions);
      sum.value += 1;
    };
  }

  private sumOf(dimensions: Record<string, string | undefined>): { value: number } {
    let key = '';
    for (const dimension of this.dimensions) key += `${dimensions[dimension] ?? ''}\u0000`;
    let sum = this.sums.get(key);
    if (sum === undefined) {
      sum = { attributes: definedOnly(dimensions), value: 0 };
      this.sums.set(key, sum);
    }
    return sum;
  }

  observe(result: ObservableResult): void {
    for (const sum of this.sums.values()) result.observe(sum.value, sum.attributes);
  }
}

function definedOnly(dimensions: Record<string, string | undefined>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(dimensions)) {
    if (value !== undefined) attributes[key] = value;
  }
  return attributes;
}

/**
 * The class of an answer's status (`2xx` ... `5xx`); statuses outside 200-599 (a 1xx
 * cannot end a call) count as `network_error`: no usable answer.
 *
 * @example
 * statusClassOf(429); // '4xx'
 */
export function statusClassOf(status: number): StatusClass {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'network_error';
}
