import { expect } from 'vitest';
import { parsePrometheusText, type Sample } from '../../src/console/prometheus-text';

export type { Sample };

/** Labels a sample must carry, each with exactly this value; others it may carry are ignored. */
export type LabelFilter = Readonly<Record<string, string>>;

/** Anything that answers the inbound API the way the e2e harness's `TestHost` does. */
export interface MetricsSource {
  api(method: 'GET', path: string): Promise<{ status: number; headers: Headers; text: string }>;
}

/**
 * The samples GET /api/metrics shows now, parsed from its Prometheus text. Fails the test when
 * the route does not answer 200 with the Prometheus text format, so a broken route never reads
 * as "no samples".
 *
 * @example
 * const samples = await metricSamples(t);
 */
export async function metricSamples(host: MetricsSource): Promise<Sample[]> {
  const answer = await host.api('GET', '/api/metrics');
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(answer.text);
}

/**
 * The samples of metric `name` whose labels include every one of `labels`.
 *
 * @example
 * samplesOf(samples, 'provisioning_requests_total', { provisioning_outcome: 'failed' });
 */
export function samplesOf(
  samples: readonly Sample[],
  name: string,
  labels: LabelFilter = {},
): Sample[] {
  return samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  );
}

/**
 * The sum of metric `name`'s samples whose labels include `labels`: a counter over every
 * series it splits into. 0 when no series matches.
 *
 * @example
 * sumOf(samples, 'provisioning_requests_total', { provisioning_connector: 'scim-sandbox' });
 */
export function sumOf(samples: readonly Sample[], name: string, labels: LabelFilter = {}): number {
  return samplesOf(samples, name, labels).reduce((total, sample) => total + sample.value, 0);
}

/**
 * Metric `name`'s samples that match `labels`, summed by the value of label `by` (a sample
 * without it counts under ''): e.g. outbound calls by status class.
 *
 * @example
 * sumBy(samples, 'provisioning_outbound_calls_total', 'provisioning_status_class', { provisioning_connector: 'scim-sandbox' });
 * // { '2xx': 40, '429': 3 }
 */
export function sumBy(
  samples: readonly Sample[],
  name: string,
  by: string,
  labels: LabelFilter = {},
): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const sample of samplesOf(samples, name, labels)) {
    const key = sample.labels[by] ?? '';
    sums[key] = (sums[key] ?? 0) + sample.value;
  }
  return sums;
}
