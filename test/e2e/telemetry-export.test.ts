import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../src/console/prometheus-text';
import {
  METRIC_CATALOGUE,
  METRIC_DIMENSIONS,
  METRIC_NAMES,
  type MetricName,
} from '../../src/domain/metric-catalogue';
import type { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { captureTraces, type TraceCapture } from '../support/trace-capture';
import { reconcile, scimAdmin } from './drift-harness';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';
import { metricSamples, samplesOf, sumBy, sumOf, type Sample } from '../support/metric-samples';

/**
 * What the service exports while it works (issue 19), read as an exporter would send it:
 * spans through an in-memory exporter behind the privacy processor, log lines, and the
 * metrics of GET /api/metrics. A workload touching every feature that records: requests on
 * both connectors (one failing), throttling, replication lag, a poisoned bulk message, a
 * refused sign-in, an outside change a reconciliation finds, a secret that expires in 10 days
 * and then has expired (the connector is quarantined, its request held).
 */

const PASSWORD = 'Planted-Pw-7f31!x';
const WRONG_SECRET = 'planted-wrong-client-secret-4c0d';
const ACCOUNT = 'trace.subject@contoso.example';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

let capture: TraceCapture;
let test: TestHost;
let samples: Sample[];
let metricsText: string;
/** The metrics while the secret had 10 days left. */
let samplesSoon: Sample[];
/** The Graph request sent while the secret had 10 days left, as it ended. */
let soonReport: { notices?: string[] };
/** The Graph request sent once the secret had expired, as it waits. */
let heldReport: { status: string; hold?: { reason: { code: string; message: string } } };
let secrets: string[];
/** The metrics, and the calls the sandboxes logged, once the requests had ended. */
let samplesAfterRequests: Sample[];
let callsServed: Record<
  'scim' | 'graph',
  { status: number; viaBatch?: boolean; answerLost?: boolean }[]
>;
/** Lost answers, SCIM's then Graph's. */
let lostAnswers: number[];
const LOST_SEED = 19;

beforeAll(async () => {
  capture = captureTraces({ accountIds: false });
  test = await startTestHost();
  const sandboxes = test.host.sandboxes!;
  secrets = [...Object.values(sandboxes.secrets), PASSWORD, WRONG_SECRET, test.host.apiKey];
  const store = test.host.services.secrets as LocalSecretStore;
  const graphSecretName = 'graph-sandbox-client-secret';
  await store.expireOn(graphSecretName, new Date(Date.now() + 10.5 * 86_400_000));
  sandboxes.graph.setReplicationDelay({ min: 1_000, max: 4_000 });
  // graph-behaviour.md, scim-interop.md: answers lost after the write was applied.
  sandboxes.graph.setFaults({ seed: LOST_SEED, lostAnswerRate: 0.5 });
  sandboxes.scim.setFaults({ seed: LOST_SEED, lostAnswerRate: 0.5 });
  sandboxes.scim.injectThrottle(1, '1');

  const traced = await fetch(`${test.host.url}/api/requests`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-functions-key': test.host.apiKey,
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
    },
    body: JSON.stringify({
      connector: 'graph-sandbox',
      correlationId: 'CHG-19',
      account: { accountId: ACCOUNT, displayName: 'Trace Subject' },
      password: PASSWORD,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }, { type: 'lock' }],
    }),
  });
  expect(traced.status).toBe(202);
  const ids = [((await traced.json()) as { requestId: string }).requestId];
  for (const body of [
    {
      connector: 'scim-sandbox',
      account: { accountId: 'export.user' },
      password: PASSWORD,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Finance'] }],
    },
    {
      connector: 'scim-sandbox',
      account: { accountId: 'export.user' },
      actions: [{ type: 'grant', groups: ['No Such Group'] }],
    },
  ]) {
    ids.push((await test.api('POST', '/api/requests', body)).body.requestId as string);
  }
  for (const id of ids) await test.finished(id);
  samplesAfterRequests = await metricSamples(test);
  callsServed = { scim: [...sandboxes.scim.requests], graph: [...sandboxes.graph.requests] };
  lostAnswers = [sandboxes.scim, sandboxes.graph].map(
    (sandbox) => sandbox.faultCounts()['lost answer'],
  );
  sandboxes.graph.setFaults(undefined);
  sandboxes.scim.setFaults(undefined);
  // An account deactivated by hand, which the reconciliation finds (once the requests are history).
  test.clock.advanceBy(5 * 60_000);
  await scimAdmin(test).setActive(String(sandboxes.scim.getUser('export.user')?.id), false);
  expect((await reconcile(test, 'scim-sandbox')).found.accountStateChangedOutside).toBe(1);
  soonReport = (await test.api('GET', `/api/requests/${ids[0]}`)).body as typeof soonReport;
  samplesSoon = await metricSamples(test);
  await test.host.services.bulkQueue.send('not json at all');
  // The running poller takes it, as the queue trigger would: handled once it left the queue.
  await until('the bad bulk message moved to the poison queue', async () => {
    const backlog = await test.host.services.bulkQueue.backlog();
    return backlog.requests === 0 && backlog.poison > 0 ? backlog : undefined;
  });
  await store.set(graphSecretName, WRONG_SECRET);
  // The wrong secret is a new version: it expires too, as the one it replaced.
  await store.expireOn(graphSecretName, new Date(Date.now() + 10.5 * 86_400_000));
  expect((await test.api('POST', '/api/connectors/graph-sandbox/status')).body.ok).toBe(false);
  // The secret has expired: a request meets it at its first call, which quarantines the connector.
  await store.expireOn(graphSecretName, new Date(Date.now() - 3_600_000));
  const expired = await test.api('POST', '/api/requests', {
    connector: 'graph-sandbox',
    account: { accountId: 'expired.subject@contoso.example' },
    actions: [{ type: 'lock' }],
  });
  heldReport = await until('the request held by the quarantine', async () => {
    const report = (await test.api('GET', `/api/requests/${expired.body.requestId as string}`))
      .body as typeof heldReport;
    return report.hold === undefined ? undefined : report;
  });
  const metrics = await test.api('GET', '/api/metrics');
  metricsText = metrics.text;
  samples = parsePrometheusText(metricsText);
}, 120_000);

afterAll(async () => {
  await test.close();
  await capture.close();
});

/** The contract's metric a Prometheus series belongs to, by its name. */
function metricOf(series: string): MetricName | undefined {
  const base = series.replace(/_(total|bucket|sum|count)$/, '');
  return METRIC_NAMES.find((name) => name.replace(/\./g, '_') === base);
}

const label = (dimension: string) => dimension.replace(/\./g, '_');

/** Where the series depart from the contract: unknown metrics, dimensions or values. */
function contractProblems(series: readonly Sample[], connectors: readonly string[]): string[] {
  const problems = new Set<string>();
  for (const sample of series) {
    if (sample.name === 'target_info') continue;
    const metric = metricOf(sample.name);
    if (metric === undefined) {
      problems.add(`${sample.name}: not in the contract`);
      continue;
    }
    const dimensions = METRIC_CATALOGUE[metric].dimensions as readonly string[];
    for (const [key, value] of Object.entries(sample.labels)) {
      if (key === 'otel_scope_name' || key === 'le') continue;
      const dimension = dimensions.find((d) => label(d) === key);
      if (dimension === undefined) {
        problems.add(`${metric}: dimension ${key}`);
        continue;
      }
      const values = METRIC_DIMENSIONS[dimension as keyof typeof METRIC_DIMENSIONS].values;
      const allowed = values === 'configured connector names' ? connectors : values;
      if (!allowed.includes(value)) problems.add(`${metric}: ${key}=${value}`);
    }
  }
  return [...problems];
}

const spanText = (span: ReadableSpan) =>
  JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events });

describe('the metrics export holds to the contract', () => {
  it('records only metrics, dimensions and values the contract lists', () => {
    expect(contractProblems(samples, ['scim-sandbox', 'graph-sandbox'])).toEqual([]);
  });

  it('records every metric of the contract whose feature exists', () => {
    const recorded = new Set(samples.map((s) => metricOf(s.name)));
    const ready = METRIC_NAMES.filter((name) => !('pending' in METRIC_CATALOGUE[name]));
    expect(ready.filter((name) => !recorded.has(name))).toEqual([]);
    // Those that wait for their feature are recorded by nothing yet.
    const pending = METRIC_NAMES.filter((name) => 'pending' in METRIC_CATALOGUE[name]);
    expect(pending.filter((name) => recorded.has(name))).toEqual([]);
  });

  it('would name a metric, a dimension and a value outside the contract', () => {
    expect(
      contractProblems(
        parsePrometheusText(
          [
            'provisioning_accounts_total{provisioning_connector="x"} 1',
            'provisioning_requests_total{provisioning_connector="x",account_id="jane"} 1',
            'provisioning_requests_total{provisioning_connector="nobody",provisioning_outcome="maybe"} 1',
          ].join('\n'),
        ),
        ['x'],
      ),
    ).toEqual([
      'provisioning_accounts_total: not in the contract',
      'provisioning.requests: dimension account_id',
      'provisioning.requests: provisioning_connector=nobody',
      'provisioning.requests: provisioning_outcome=maybe',
    ]);
  });
});

describe('the metrics count what the targets did', () => {
  it('every call each target logged, by the class of the answer that reached the service', () => {
    // A lost answer is a call: a reset counts as network_error, a gateway's 504 as 5xx.
    expect(
      lostAnswers.every((count) => count > 0),
      String(lostAnswers),
    ).toBe(true);
    const classOf = (status: number) =>
      status === 0 ? 'network_error' : `${Math.floor(status / 100)}xx`;
    for (const [connector, log] of [
      ['scim-sandbox', callsServed.scim],
      ['graph-sandbox', callsServed.graph],
    ] as const) {
      // A $batch is one call; its sub-responses count only as the 429s that reached the service.
      const calls = log.filter((call) => call.viaBatch !== true);
      const logged: Record<string, number> = {};
      for (const call of calls)
        logged[classOf(call.status)] = (logged[classOf(call.status)] ?? 0) + 1;
      const ofConnector = { provisioning_connector: connector };
      const counted = sumBy(
        samplesAfterRequests,
        'provisioning_outbound_calls_total',
        'provisioning_status_class',
        ofConnector,
      );
      expect(counted, connector).toEqual(logged);
      const throttled = sumOf(
        samplesAfterRequests,
        'provisioning_throttle_responses_total',
        ofConnector,
      );
      expect(throttled, connector).toBe(
        log.filter((call) => call.status === 429 && call.answerLost !== true).length,
      );
    }
  });
});

describe("the client secret's expiry", () => {
  it('10 days ahead: the request carries the notice and the gauge says 10 days', () => {
    expect(soonReport.notices?.join(' ')).toMatch(
      /client secret of connector "graph-sandbox" expires on \S+ \(in 10 days\)/,
    );
    expect(
      samplesOf(samplesSoon, 'provisioning_secret_time_to_expiry', {
        provisioning_connector: 'graph-sandbox',
      }).map((sample) => Math.floor(sample.value)),
    ).toEqual([10]);
  });

  it('expired: a request is held with GRAPH_CLIENT_SECRET_EXPIRED, and the quarantine is counted', async () => {
    expect(heldReport.status).toBe('running');
    expect(heldReport.hold?.reason.code).toBe('GRAPH_CLIENT_SECRET_EXPIRED');
    expect(heldReport.hold?.reason.message).toContain('graph-sandbox');
    // The quarantine the service's shared store holds is the one the metrics report.
    const states = await test.host.services.quarantine.list();
    expect(states.map((state) => [state.connector, state.epoch, state.reason.code])).toEqual([
      ['graph-sandbox', 1, 'GRAPH_CLIENT_SECRET_EXPIRED'],
    ]);
    const graph = { provisioning_connector: 'graph-sandbox' };
    expect(
      samplesOf(samples, 'provisioning_quarantine_entries_total', graph).map((s) => [
        s.labels.error_type,
        s.value,
      ]),
    ).toEqual([['GRAPH_CLIENT_SECRET_EXPIRED', 1]]);
    expect(
      samplesOf(samples, 'provisioning_connector_quarantined', {}).map((s) => [
        s.labels.provisioning_connector,
        s.labels.error_type,
        s.value,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['graph-sandbox', 'GRAPH_CLIENT_SECRET_EXPIRED', 1],
        ['scim-sandbox', undefined, 0],
      ]),
    );
    expect(
      samplesOf(samples, 'provisioning_secret_time_to_expiry', graph).map((s) => s.value < 0),
    ).toEqual([true]);
  });
});

describe('no secret leaves as telemetry', () => {
  it('planted passwords, client secrets, tokens and keys appear in no span, log line or metric', () => {
    const exported = [
      ...capture.spans().map(spanText),
      ...test.logs,
      metricsText,
      ...test.answers,
    ].join('\n');
    expect(capture.spans().length).toBeGreaterThan(20);
    // Says which planted secret leaked, never the secret itself.
    secrets.forEach((secret, index) => {
      expect(exported.includes(secret), `planted secret #${index} was exported`).toBe(false);
    });
    expect(exported).not.toMatch(/Bearer\s+[A-Za-z0-9._~+/=-]{8,}/);
    expect(exported).not.toMatch(/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\./);
    expect(exported.toLowerCase()).not.toContain('authorization');
  });

  it('keeps account IDs out of spans and metrics unless TELEMETRY_ACCOUNT_IDS allows them', () => {
    const text = [...capture.spans().map(spanText), metricsText].join('\n');
    expect(text).not.toContain(ACCOUNT);
    expect(text).not.toContain('export.user');
  });
});

describe('one request is one trace', () => {
  it("continues the caller's trace through the orchestration's activities to every call", () => {
    const spans = capture.spans().filter((s) => s.spanContext().traceId === TRACE_ID);
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    const submit = spans.find((s) => s.name === 'submitProvisioningRequest')!;
    expect(submit.attributes).toMatchObject({
      'provisioning.connector': 'graph-sandbox',
      'provisioning.correlation_id': 'CHG-19',
      'provisioning.request_id': expect.any(String),
    });
    const activities = spans.filter((s) => s.name.startsWith('activity:'));
    expect(activities.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        // The first look at the connector, which sends the request's create (revision 5).
        'activity:connectorGate',
        'activity:writeMemberships',
        'activity:setAccountEnabled',
        'activity:recordStep',
      ]),
    );
    const clients = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(clients.length).toBeGreaterThan(4);
    const activityIds = new Set(activities.map((s) => s.spanContext().spanId));
    for (const client of clients) expect(activityIds).toContain(client.parentSpanContext?.spanId);
  });

  it("reaches the target: every call Graph served for the request carried the caller's trace", () => {
    const graph = test.host.sandboxes!.graph;
    const userId = graph.userIdByUpn(ACCOUNT)!;
    const calls = graph.requests.filter((r) => r.path.includes(userId) && r.viaBatch !== true);
    expect(calls.length).toBeGreaterThan(3);
    for (const call of calls) expect(call.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-`));
    const unrelated = test.host.sandboxes!.scim.requests.filter((r) => r.traceparent !== undefined);
    expect(unrelated.every((r) => !r.traceparent!.includes(TRACE_ID))).toBe(true);
  });
});
