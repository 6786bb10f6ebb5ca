import { ERROR_CODES } from './error-catalogue';
import { DRIFT_TYPES } from './drift-finding';
import { ACTION_TYPES } from './provisioning-request';

/**
 * The metric contract: every metric the service records, on one meter, with its instrument,
 * unit (UCUM, as OpenTelemetry writes it), dimensions and the operator's question it answers.
 * It is the closed set, like the error codes: the README's "Operating it" table, the alert
 * rules and the workbook in infra/ are checked against it in tests, so an alert can only
 * watch a metric that is recorded and every recorded metric is documented.
 *
 * Names follow the OpenTelemetry conventions: lowercase, dotted, namespaced under
 * `provisioning.`, no unit in the name. Durations are histograms in seconds; counts are
 * counters of an annotated unit (`{request}`); states and levels are gauges.
 *
 * How they land in Azure: the Azure Monitor exporter writes each data point to the
 * workspace table `AppMetrics` (Application Insights `customMetrics`): `Name` is the metric
 * name, `Properties` holds the dimensions under the keys below, counters and histograms are
 * sent as deltas per export (`Sum`: the increase or the sum of the values, `ItemCount`: the
 * number of values, `Min`/`Max` for histograms), a gauge as its current value in `Sum`.
 *
 * Privacy: a dimension is either a closed list of values or the name of a configured
 * connector (operator configuration). Never a dimension: account IDs, display names, e-mail
 * addresses or user principal names (personal data), group names or IDs, request and
 * correlation IDs, `requestedBy` (unbounded, and personal), secret names or values, URLs.
 * Those belong, where allowed at all, on spans and log records, not on metrics.
 */
export const METER_NAME = 'provisioning-service';

/** A dimension's values: a closed list, or the names of the configured connectors. */
export type DimensionValues = readonly string[] | 'configured connector names';

export interface DimensionDefinition {
  description: string;
  values: DimensionValues;
}

/** The dimensions (OpenTelemetry attribute keys) metrics may carry. */
export const METRIC_DIMENSIONS = {
  'provisioning.connector': {
    description: 'the connector the measurement is about, as named in PROVISIONING_CONNECTORS',
    values: 'configured connector names',
  },
  'provisioning.action': {
    description: 'the action of a request step',
    values: ACTION_TYPES,
  },
  'provisioning.outcome': {
    description: 'how a request or a step ended, or whether a write became visible in time',
    values: ['succeeded', 'failed'],
  },
  'error.type': {
    description:
      'the error code (src/domain/error-catalogue.ts) of a failure; absent when nothing failed',
    values: ERROR_CODES,
  },
  'provisioning.status_class': {
    description: "the class of a target's answer, or why there was none",
    values: ['2xx', '3xx', '4xx', '5xx', 'timeout', 'network_error'],
  },
  'provisioning.queue': {
    description: 'the bulk request queue or its poison queue',
    values: ['requests', 'poison'],
  },
  'provisioning.poison_reason': {
    description: 'why a bulk message was given up (src/api/bulk-request-handler.ts)',
    values: ['not_json', 'invalid', 'unknown_connector', 'request_conflict', 'failed_repeatedly'],
  },
  'provisioning.finding': {
    description:
      'the kind of drift a reconciliation found (src/domain/drift-finding.ts, in snake case)',
    values: DRIFT_TYPES.map(snakeCase),
  },
} as const satisfies Record<string, DimensionDefinition>;

export type MetricDimension = keyof typeof METRIC_DIMENSIONS;

/** counter: only grows; histogram: a distribution of values; gauge: a level observed now. */
export type InstrumentKind = 'counter' | 'histogram' | 'gauge';

export interface MetricDefinition {
  instrument: InstrumentKind;
  /** UCUM, as OpenTelemetry writes it: `s`, `d`, `1`, or an annotation such as `{request}`. */
  unit: string;
  dimensions: readonly MetricDimension[];
  /** What one measurement is. */
  description: string;
  /** The operator's question the metric answers. */
  question: string;
  /** Set while the behaviour it measures does not exist yet: what it waits for. */
  pending?: string;
}

/**
 * Every metric of the service. `error.type` is set only on failures; every other listed
 * dimension is set on every measurement.
 */
export const METRIC_CATALOGUE = {
  'provisioning.requests': {
    instrument: 'counter',
    unit: '{request}',
    dimensions: ['provisioning.connector', 'provisioning.outcome', 'error.type'],
    description:
      'a request that ended (API or bulk queue), by its outcome; a failed one with the code of the step that failed it',
    question: 'How many requests does each connector finish, how many fail, and with which error?',
  },
  'provisioning.step.duration': {
    instrument: 'histogram',
    unit: 's',
    dimensions: [
      'provisioning.connector',
      'provisioning.action',
      'provisioning.outcome',
      'error.type',
    ],
    description:
      "a step's time from its first call to its verdict, durable timers included; its count is the steps by action and outcome",
    question: 'How long does each action take on each connector, and which actions fail?',
  },
  'provisioning.outbound.calls': {
    instrument: 'counter',
    unit: '{call}',
    dimensions: ['provisioning.connector', 'provisioning.status_class'],
    description:
      'one call sent to a target (each attempt: retries count), by the class of its answer',
    question: 'How does each target answer: how many calls, how many 4xx, 5xx or no answer?',
  },
  'provisioning.throttle.responses': {
    instrument: 'counter',
    unit: '{response}',
    dimensions: ['provisioning.connector'],
    description: 'a throttling answer from a target: 429, or 503 with Retry-After',
    question: 'How often does each target throttle the service?',
  },
  'provisioning.throttle.wait.duration': {
    instrument: 'histogram',
    unit: 's',
    dimensions: ['provisioning.connector'],
    description:
      'one pause of a call, or one hold of a request on a durable timer, because its target throttles (Retry-After or backoff); the sum is the time spent waiting',
    question: 'How much time do calls to each target spend waiting on throttling?',
  },
  'provisioning.verification.reads': {
    instrument: 'histogram',
    unit: '{read}',
    dimensions: ['provisioning.connector', 'provisioning.action'],
    description:
      'the re-reads one verified write needed until it showed, or until the window ended',
    question: 'How many re-reads does a verified write need on each target (Graph replica lag)?',
  },
  'provisioning.verification.visibility.duration': {
    instrument: 'histogram',
    unit: 's',
    dimensions: ['provisioning.connector', 'provisioning.action', 'provisioning.outcome'],
    description:
      'time from a write to the read that first showed it (succeeded), or to the end of the visibility window (failed)',
    question: 'How long until a write becomes visible on each target, and how often never in time?',
  },
  'provisioning.quota.utilization': {
    instrument: 'gauge',
    unit: '1',
    dimensions: ['provisioning.connector'],
    description:
      "the share (0 to 1) of the target's request quota the connector's pacing has used in its window",
    question: 'How close to the target quota does each connector run?',
  },
  'provisioning.connector.quarantined': {
    instrument: 'gauge',
    unit: '1',
    dimensions: ['provisioning.connector', 'error.type'],
    description: '1 while the connector is in quarantine (error.type: why), 0 when it is not',
    question: 'Which connectors are in quarantine now, and why?',
  },
  'provisioning.quarantine.entries': {
    instrument: 'counter',
    unit: '{entry}',
    dimensions: ['provisioning.connector', 'error.type'],
    description: 'a connector entering quarantine, with the error code that put it there',
    question: 'When did a connector enter quarantine, and why?',
  },
  'provisioning.bulk.backlog': {
    instrument: 'gauge',
    unit: '{message}',
    dimensions: ['provisioning.queue'],
    description:
      'the approximate number of messages waiting in the bulk queue and in its poison queue',
    question: 'Is the bulk queue keeping up, and is anything waiting in its poison queue?',
  },
  'provisioning.bulk.poisoned': {
    instrument: 'counter',
    unit: '{message}',
    dimensions: ['provisioning.poison_reason'],
    description: 'a bulk message moved to the poison queue, by why it was given up',
    question: 'How many bulk requests were given up, and why?',
  },
  'provisioning.token.failures': {
    instrument: 'counter',
    unit: '{failure}',
    dimensions: ['provisioning.connector', 'error.type'],
    description:
      'a failed attempt to obtain an access token (tenant, app, secret missing, refused or expired)',
    question: 'Does a connector fail to sign in to its target, and why?',
  },
  'provisioning.reconciliation.findings': {
    instrument: 'counter',
    unit: '{finding}',
    dimensions: ['provisioning.connector', 'provisioning.finding'],
    description: "a difference a reconciliation found between the service's record and the target",
    question: 'How much drift does reconciliation find on each connector?',
  },
  'provisioning.secret.time_to_expiry': {
    instrument: 'gauge',
    unit: 'd',
    dimensions: ['provisioning.connector'],
    description:
      "days until the connector's credential expires (negative once expired), observed on every export while the app runs",
    question: "How many days are left before each connector's credential expires?",
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRIC_CATALOGUE;

/** Every metric name, in the catalogue's order. */
export const METRIC_NAMES = Object.keys(METRIC_CATALOGUE) as MetricName[];

/** A drift type as the `provisioning.finding` dimension spells it: `memberAddedOutside` -> `member_added_outside`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
