import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  METER_NAME,
  METRIC_CATALOGUE,
  METRIC_DIMENSIONS,
  METRIC_NAMES,
  type DimensionDefinition,
  type MetricDefinition,
  type MetricName,
} from '../../../src/domain/metric-catalogue';
import { codeSpans, tableUnder } from '../../support/markdown-table';

const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** Where the README's metrics table ("Operating it") departs from the contract. */
function readmeProblems(rows: string[][]): string[] {
  const problems: string[] = [];
  const listed = rows.map(([name]) => codeSpans(name ?? '')[0] ?? '');
  for (const name of METRIC_NAMES) if (!listed.includes(name)) problems.push(`${name}: not listed`);
  for (const [name = '', instrument = '', unit = '', dimensions = ''] of rows) {
    const metric = codeSpans(name)[0] ?? name;
    if (!METRIC_NAMES.includes(metric as MetricName)) {
      problems.push(`${metric}: listed, but no such metric`);
      continue;
    }
    const definition = METRIC_CATALOGUE[metric as MetricName];
    if (instrument !== definition.instrument) problems.push(`${metric}: instrument ${instrument}`);
    if (codeSpans(unit)[0] !== definition.unit) problems.push(`${metric}: unit ${unit}`);
    if (codeSpans(dimensions).join() !== definition.dimensions.join()) {
      problems.push(`${metric}: dimensions ${dimensions}`);
    }
  }
  return problems;
}

const metric = (name: MetricName): MetricDefinition => METRIC_CATALOGUE[name];

/** Problems with a metric's name and unit against the OpenTelemetry naming rules. */
function namingProblems(name: string, definition: MetricDefinition): string[] {
  const problems: string[] = [];
  if (!/^provisioning(\.[a-z][a-z0-9_]*)+$/.test(name))
    problems.push(`${name}: not dotted lowercase`);
  if (/(_|\.)(seconds|ms|days|total|count|percent)$/.test(name)) {
    problems.push(`${name}: unit or Prometheus suffix in the name`);
  }
  if (!/^(s|d|1|\{[a-z]+\})$/.test(definition.unit)) {
    problems.push(`${name}: unit ${definition.unit} is not UCUM as OpenTelemetry writes it`);
  }
  if (name.endsWith('.duration') !== (definition.unit === 's')) {
    problems.push(`${name}: a duration is a histogram in seconds, and only a duration is in s`);
  }
  if (definition.unit === 's' && definition.instrument !== 'histogram') {
    problems.push(`${name}: a duration must be a histogram`);
  }
  return problems;
}

/** Dimensions whose values are neither a closed list nor the configured connector names. */
function openDimensions(dimensions: Record<string, DimensionDefinition>): string[] {
  return Object.entries(dimensions)
    .filter(
      ([, d]) =>
        d.values !== 'configured connector names' &&
        (!Array.isArray(d.values) || d.values.length === 0),
    )
    .map(([key]) => key);
}

describe('the metric contract', () => {
  it('names every metric in OpenTelemetry conventions with a UCUM unit', () => {
    expect(METRIC_NAMES.length).toBeGreaterThanOrEqual(15);
    expect(METRIC_NAMES.flatMap((name) => namingProblems(name, metric(name)))).toEqual([]);
  });

  it('would name a metric that breaks the conventions', () => {
    const counter: MetricDefinition = {
      instrument: 'counter',
      unit: 'requests',
      dimensions: [],
      description: 'x',
      question: 'x?',
    };
    expect(namingProblems('provisioning.requests_total', counter)).toEqual([
      'provisioning.requests_total: unit or Prometheus suffix in the name',
      'provisioning.requests_total: unit requests is not UCUM as OpenTelemetry writes it',
    ]);
    expect(namingProblems('provisioning.step.duration', { ...counter, unit: 'ms' })).toContain(
      'provisioning.step.duration: a duration is a histogram in seconds, and only a duration is in s',
    );
  });

  it('bounds every dimension: a closed list of values or a configured connector name', () => {
    expect(openDimensions(METRIC_DIMENSIONS)).toEqual([]);
    const keys = Object.keys(METRIC_DIMENSIONS).join(' ');
    // Personal data and unbounded identifiers never become a dimension.
    expect(keys).not.toMatch(/account|user|upn|mail|display|group|request_?id|correlation|secret/i);
  });

  it('would name a dimension without a closed set of values', () => {
    expect(
      openDimensions({
        'provisioning.account_id': { description: 'x', values: [] },
        'provisioning.connector': METRIC_DIMENSIONS['provisioning.connector'],
      }),
    ).toEqual(['provisioning.account_id']);
  });

  it('says for each metric what it measures and which question it answers', () => {
    for (const name of METRIC_NAMES) {
      expect(metric(name).description.length, name).toBeGreaterThan(20);
      expect(metric(name).question, name).toMatch(/^[A-Z].{15,}\?$/);
      expect(new Set(metric(name).dimensions).size, name).toBe(metric(name).dimensions.length);
    }
  });

  it('covers each metric issue 19 asks for, with the dimensions it names', () => {
    const asked: [string, MetricName, string[]][] = [
      [
        'requests by connector and outcome',
        'provisioning.requests',
        ['provisioning.connector', 'provisioning.outcome'],
      ],
      [
        'steps by action and outcome, and their duration',
        'provisioning.step.duration',
        ['provisioning.connector', 'provisioning.action', 'provisioning.outcome'],
      ],
      [
        'outbound calls by connector and status class',
        'provisioning.outbound.calls',
        ['provisioning.connector', 'provisioning.status_class'],
      ],
      ['429s', 'provisioning.throttle.responses', ['provisioning.connector']],
      [
        'time waiting on throttling',
        'provisioning.throttle.wait.duration',
        ['provisioning.connector'],
      ],
      [
        're-reads per verified write',
        'provisioning.verification.reads',
        ['provisioning.connector'],
      ],
      [
        'time until a write became visible',
        'provisioning.verification.visibility.duration',
        ['provisioning.connector'],
      ],
      ['quota use', 'provisioning.quota.utilization', ['provisioning.connector']],
      ['quarantine state', 'provisioning.connector.quarantined', ['provisioning.connector']],
      ['bulk queue backlog', 'provisioning.bulk.backlog', ['provisioning.queue']],
      ['poison messages', 'provisioning.bulk.poisoned', ['provisioning.poison_reason']],
      ['token failures', 'provisioning.token.failures', ['provisioning.connector', 'error.type']],
      [
        'reconciliation findings',
        'provisioning.reconciliation.findings',
        ['provisioning.connector'],
      ],
      ['secret days to expiry', 'provisioning.secret.time_to_expiry', ['provisioning.connector']],
    ];
    for (const [what, name, dimensions] of asked) {
      expect(metric(name).dimensions, what).toEqual(expect.arrayContaining(dimensions));
    }
    expect(metric('provisioning.secret.time_to_expiry').unit).toBe('d');
  });

  it("is what the README's metrics table lists: every metric, instrument, unit, dimensions", () => {
    const rows = tableUnder(readme, '### Metrics');
    expect(rows.length).toBe(METRIC_NAMES.length);
    expect(readmeProblems(rows)).toEqual([]);
    expect(readme).toContain(`One meter, \`${METER_NAME}\``);
  });

  it('would name a metric missing from the README, one too many and a wrong unit', () => {
    const rows = tableUnder(readme, '### Metrics').filter(
      ([name]) => !name!.includes('provisioning.bulk.backlog'),
    );
    rows[0] = [rows[0]![0]!, rows[0]![1]!, '`{req}`', rows[0]![3]!];
    rows.push(['`provisioning.jobs`', 'counter', '`{job}`', '']);
    expect(readmeProblems(rows)).toEqual([
      'provisioning.bulk.backlog: not listed',
      'provisioning.requests: unit `{req}`',
      'provisioning.jobs: listed, but no such metric',
    ]);
  });
});
