/** One sample of the Prometheus text format: a series name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

/**
 * The samples of a Prometheus text exposition (format 0.0.4): comments and `# HELP`/`# TYPE`
 * lines skipped, label values unescaped. A line that is not a sample is skipped.
 *
 * @example
 * parsePrometheusText('a_total{x="1"} 2\n'); // [{ name: 'a_total', labels: { x: '1' }, value: 2 }]
 */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match === null) continue;
    const [, name = '', body = '', value = ''] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    let label: RegExpExecArray | null;
    while ((label = LABEL.exec(body)) !== null) {
      labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\(.)/g, (_, c: string) =>
        c === 'n' ? '\n' : c,
      );
    }
    const number = value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : Number(value);
    if (!Number.isNaN(number)) samples.push({ name, labels, value: number });
  }
  return samples;
}

/** A connector's numbers since the host started, as the Health page shows them. */
export interface ConnectorNumbers {
  requestsSucceeded: number;
  requestsFailed: number;
  /** Failed requests by error code. */
  failures: Record<string, number>;
  /** Outbound calls by the class of their answer (2xx ... 5xx, timeout, network_error). */
  calls: Record<string, number>;
  throttled: number;
  throttleWaitSeconds: number;
  tokenFailures: number;
  /** Writes verified by reading back, the reads they took and the seconds until they showed. */
  verifiedWrites: number;
  verificationReads: number;
  visibilitySeconds: number;
  /** Days until the credential expires, when the connector keeps one that does. */
  credentialDays?: number;
}

export interface MetricsSummary {
  connectors: Map<string, ConnectorNumbers>;
  backlog: { requests?: number; poison?: number };
  poisoned: Record<string, number>;
}

function empty(): ConnectorNumbers {
  return {
    requestsSucceeded: 0,
    requestsFailed: 0,
    failures: {},
    calls: {},
    throttled: 0,
    throttleWaitSeconds: 0,
    tokenFailures: 0,
    verifiedWrites: 0,
    verificationReads: 0,
    visibilitySeconds: 0,
  };
}

const add = (record: Record<string, number>, key: string, value: number) => {
  record[key] = (record[key] ?? 0) + value;
};

/**
 * The metrics of the contract (src/domain/metric-catalogue.ts) as their Prometheus names
 * carry them, summed per connector.
 */
export function summarizeMetrics(samples: readonly Sample[]): MetricsSummary {
  const summary: MetricsSummary = { connectors: new Map(), backlog: {}, poisoned: {} };
  const of = (sample: Sample) => {
    const name = sample.labels.provisioning_connector ?? '';
    let numbers = summary.connectors.get(name);
    if (numbers === undefined) {
      numbers = empty();
      summary.connectors.set(name, numbers);
    }
    return numbers;
  };
  for (const sample of samples) {
    const { labels, value } = sample;
    switch (sample.name) {
      case 'provisioning_requests_total':
        if (labels.provisioning_outcome === 'failed') {
          of(sample).requestsFailed += value;
          add(of(sample).failures, labels.error_type ?? 'unknown', value);
        } else of(sample).requestsSucceeded += value;
        break;
      case 'provisioning_outbound_calls_total':
        add(of(sample).calls, labels.provisioning_status_class ?? 'unknown', value);
        break;
      case 'provisioning_throttle_responses_total':
        of(sample).throttled += value;
        break;
      case 'provisioning_throttle_wait_duration_sum':
        of(sample).throttleWaitSeconds += value;
        break;
      case 'provisioning_token_failures_total':
        of(sample).tokenFailures += value;
        break;
      case 'provisioning_verification_reads_count':
        of(sample).verifiedWrites += value;
        break;
      case 'provisioning_verification_reads_sum':
        of(sample).verificationReads += value;
        break;
      case 'provisioning_verification_visibility_duration_sum':
        of(sample).visibilitySeconds += value;
        break;
      case 'provisioning_secret_time_to_expiry':
        of(sample).credentialDays = value;
        break;
      case 'provisioning_bulk_backlog':
        if (labels.provisioning_queue === 'requests') summary.backlog.requests = value;
        if (labels.provisioning_queue === 'poison') summary.backlog.poison = value;
        break;
      case 'provisioning_bulk_poisoned_total':
        add(summary.poisoned, labels.provisioning_poison_reason ?? 'unknown', value);
        break;
    }
  }
  return summary;
}
