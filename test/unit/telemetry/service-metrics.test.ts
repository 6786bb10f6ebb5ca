import { afterEach, describe, expect, it } from 'vitest';
import {
  METRIC_CATALOGUE,
  METRIC_DIMENSIONS,
  type MetricName,
} from '../../../src/domain/metric-catalogue';
import { statusClassOf, type ServiceMetrics } from '../../../src/telemetry/service-metrics';
import { metricsUnderTest, type CollectedMetric } from '../../support/collected-metrics';

const INSTRUMENT_TYPE = { counter: 'SUM', histogram: 'HISTOGRAM', gauge: 'GAUGE' } as const;

/** Where a recorded metric departs from the contract: name, instrument, unit, dimensions, values. */
function contractProblems(metric: CollectedMetric): string[] {
  const definition = METRIC_CATALOGUE[metric.name as MetricName];
  if (definition === undefined) return [`${metric.name}: not in the contract`];
  const problems: string[] = [];
  if (metric.type !== INSTRUMENT_TYPE[definition.instrument])
    problems.push(`${metric.name}: recorded as ${metric.type}`);
  if (metric.unit !== definition.unit) problems.push(`${metric.name}: unit ${metric.unit}`);
  for (const point of metric.points) {
    for (const [key, value] of Object.entries(point.attributes)) {
      const dimension = METRIC_DIMENSIONS[key as keyof typeof METRIC_DIMENSIONS];
      if (!(definition.dimensions as readonly string[]).includes(key) || dimension === undefined) {
        problems.push(`${metric.name}: dimension ${key}`);
      } else if (Array.isArray(dimension.values) && !dimension.values.includes(value as never)) {
        problems.push(`${metric.name}: ${key}=${String(value)}`);
      }
    }
    const required = definition.dimensions.filter((d) => d !== 'error.type');
    for (const key of required)
      if (!(key in point.attributes)) problems.push(`${metric.name}: ${key} missing`);
  }
  return problems;
}

/** Every emission point once, as the service calls them. */
function emitEverything(metrics: ServiceMetrics): void {
  metrics.requestEnded('entra', {
    outcome: 'failed',
    errorType: 'MEMBERSHIP_MISMATCH',
    steps: [
      { action: 'create', outcome: 'succeeded', seconds: 0.4 },
      {
        action: 'grant',
        outcome: 'failed',
        errorType: 'MEMBERSHIP_MISMATCH',
        seconds: 31,
        verification: { reads: 8, elapsedMs: 30_000, visible: false },
      },
    ],
  });
  const entraCalls = metrics.outboundCalls('entra');
  entraCalls(statusClassOf(429));
  entraCalls('timeout');
  metrics.throttled('entra', 3);
  metrics.throttleWaited('entra', 2_500);
  metrics.tokenFailed('entra', 'GRAPH_CLIENT_SECRET_EXPIRED');
  metrics.bulkPoisoned('not_json');
  metrics.quarantineEntered('hr', 'TARGET_UNAVAILABLE');
  metrics.reconciliationFound('hr', 'memberAddedOutside');
  metrics.observeBulkBacklog(() => [
    { value: 4, dimensions: { 'provisioning.queue': 'requests' } },
    { value: 1, dimensions: { 'provisioning.queue': 'poison' } },
  ]);
  metrics.observeCredentialExpiry(async () => [
    { value: 9.5, dimensions: { 'provisioning.connector': 'entra' } },
  ]);
  metrics.observeQuarantine(() => [
    {
      value: 1,
      dimensions: { 'provisioning.connector': 'hr', 'error.type': 'TARGET_UNAVAILABLE' },
    },
  ]);
  metrics.observeQuotaUtilization(() => [
    { value: 0.42, dimensions: { 'provisioning.connector': 'entra' } },
  ]);
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
});

describe('ServiceMetrics: one emission point per metric of the contract', () => {
  it('records every metric of the contract, each as the contract declares it', async () => {
    const under = metricsUnderTest();
    close = under.close;
    emitEverything(under.metrics);
    const collected = await under.collect();
    expect(collected.flatMap(contractProblems)).toEqual([]);
    expect(collected.map((m) => m.name).sort()).toEqual(Object.keys(METRIC_CATALOGUE).sort());
  });

  it('counts a request and its steps, and a read-back in reads and seconds', async () => {
    const under = metricsUnderTest();
    close = under.close;
    emitEverything(under.metrics);
    const collected = await under.collect();
    const metric = (name: string) => collected.find((m) => m.name === name)!.points;
    expect(metric('provisioning.requests')).toEqual([
      {
        attributes: {
          'provisioning.connector': 'entra',
          'provisioning.outcome': 'failed',
          'error.type': 'MEMBERSHIP_MISMATCH',
        },
        value: 1,
      },
    ]);
    expect(metric('provisioning.step.duration').map((p) => [p.attributes, p.sum])).toEqual([
      [
        {
          'provisioning.connector': 'entra',
          'provisioning.action': 'create',
          'provisioning.outcome': 'succeeded',
        },
        0.4,
      ],
      [
        {
          'provisioning.connector': 'entra',
          'provisioning.action': 'grant',
          'provisioning.outcome': 'failed',
          'error.type': 'MEMBERSHIP_MISMATCH',
        },
        31,
      ],
    ]);
    expect(metric('provisioning.verification.reads')[0]).toMatchObject({ count: 1, sum: 8 });
    expect(metric('provisioning.verification.visibility.duration')[0]).toMatchObject({
      attributes: { 'provisioning.outcome': 'failed' },
      sum: 30,
    });
    expect(metric('provisioning.throttle.responses')[0]?.value).toBe(3);
    expect(metric('provisioning.throttle.wait.duration')[0]?.sum).toBe(2.5);
    expect(metric('provisioning.secret.time_to_expiry')[0]?.value).toBe(9.5);
  });

  it('sums counts per set of dimensions between collections, each set one series', async () => {
    const under = metricsUnderTest();
    close = under.close;
    const entraCalls = under.metrics.outboundCalls('entra');
    for (let i = 0; i < 5; i++) entraCalls('2xx');
    entraCalls('5xx');
    under.metrics.outboundCalls('hr')('2xx');
    under.metrics.requestEnded('hr', { outcome: 'succeeded', steps: [] });
    under.metrics.requestEnded('hr', {
      outcome: 'failed',
      errorType: 'TARGET_UNAVAILABLE',
      steps: [],
    });
    const points = async (name: string) =>
      (await under.collect()).find((m) => m.name === name)!.points;
    expect(await points('provisioning.outbound.calls')).toEqual([
      {
        attributes: { 'provisioning.connector': 'entra', 'provisioning.status_class': '2xx' },
        value: 5,
      },
      {
        attributes: { 'provisioning.connector': 'entra', 'provisioning.status_class': '5xx' },
        value: 1,
      },
      {
        attributes: { 'provisioning.connector': 'hr', 'provisioning.status_class': '2xx' },
        value: 1,
      },
    ]);
    expect(await points('provisioning.requests')).toEqual([
      {
        attributes: { 'provisioning.connector': 'hr', 'provisioning.outcome': 'succeeded' },
        value: 1,
      },
      {
        attributes: {
          'provisioning.connector': 'hr',
          'provisioning.outcome': 'failed',
          'error.type': 'TARGET_UNAVAILABLE',
        },
        value: 1,
      },
    ]);
    // A counter keeps its total: later calls add to what was collected before, and a second
    // recorder of the same connector adds to the same series.
    under.metrics.outboundCalls('entra')('2xx');
    expect((await points('provisioning.outbound.calls'))[0]?.value).toBe(6);
  });

  it('would name a metric, a dimension or a value the contract lacks', () => {
    expect(
      contractProblems({ name: 'provisioning.accounts', unit: '1', type: 'SUM', points: [] }),
    ).toEqual(['provisioning.accounts: not in the contract']);
    expect(
      contractProblems({
        name: 'provisioning.requests',
        unit: '{request}',
        type: 'SUM',
        points: [
          {
            attributes: {
              'provisioning.connector': 'hr',
              'provisioning.outcome': 'maybe',
              'provisioning.account_id': 'jane',
            },
            value: 1,
          },
        ],
      }),
    ).toEqual([
      'provisioning.requests: provisioning.outcome=maybe',
      'provisioning.requests: dimension provisioning.account_id',
    ]);
  });

  it('does not compile a dimension the contract does not list for the metric', () => {
    const check = (metrics: ServiceMetrics) => {
      // @ts-expect-error: bulk.poisoned has no connector, and `leaked` is no reason.
      metrics.bulkPoisoned('leaked');
      metrics.observeBulkBacklog(() => [
        // @ts-expect-error: the queue is `requests` or `poison`.
        { value: 1, dimensions: { 'provisioning.queue': 'jane.doe@contoso.com' } },
      ]);
    };
    expect(typeof check).toBe('function');
  });
});

describe('statusClassOf', () => {
  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [302, '3xx'],
    [404, '4xx'],
    [429, '4xx'],
    [503, '5xx'],
    [0, 'network_error'],
  ])('%i is %s', (status, expected) => {
    expect(statusClassOf(status)).toBe(expected);
  });
});
