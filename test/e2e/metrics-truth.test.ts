import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxConnectors } from '../../src/runtime/sandbox-connectors';
import { startTestHost, type TestHost } from './local-host-harness';
import { metricSamples, sumBy, sumOf, type Sample } from '../support/metric-samples';

/**
 * Issue 19: a run against the sandboxes with injected 429s, 5xx, replication lag and answers
 * lost after the write was applied, after which every counter `GET /api/metrics` shows equals
 * what the sandboxes' own logs say happened: the calls they served by the class of the answer
 * that reached the service (a reset: `network_error`; a gateway's 504: `5xx`), the 429s that
 * reached it, the writes they committed (truth logs) and the re-reads Graph served after each
 * write.
 */

const REQUESTS_PER_CONNECTOR = 5;
/** Granted in turn: one group, then three (on Graph, a `$batch` whose envelope may be lost). */
const GROUPS = [['Sales'], ['Finance', 'Support', 'Marketing']];
const GRANTED = Array.from({ length: REQUESTS_PER_CONNECTOR }, (_, i) => GROUPS[i % 2]!.length);

let test: TestHost;
let sandboxes: SandboxConnectors;
let samples: Sample[];

const classOf = (status: number) =>
  status >= 200 && status < 600 ? `${Math.floor(status / 100)}xx` : 'network_error';

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** The sum of a metric's samples whose labels include `labels`. */
const sum = (name: string, labels: Record<string, string>) => sumOf(samples, name, labels);

beforeAll(async () => {
  test = await startTestHost();
  sandboxes = test.host.sandboxes!;
  const plan = {
    seed: 8,
    throttleRate: 0.1,
    serverErrorRate: 0.08,
    lostAnswerRate: 0.25,
    retryAfterSeconds: [0, 0],
  };
  sandboxes.scim.setFaults(plan as Parameters<typeof sandboxes.scim.setFaults>[0]);
  sandboxes.graph.setFaults(plan as Parameters<typeof sandboxes.graph.setFaults>[0]);
  // Reads lag writes by 1 to 6 s of the virtual clock: grants are verified after re-reads.
  sandboxes.graph.setReplicationDelay({ min: 1_000, max: 6_000 });
  sandboxes.scim.clearRequests();
  sandboxes.graph.clearRequests();
  sandboxes.scim.clearTruthLog();
  sandboxes.graph.clearTruthLog();

  const ids: string[] = [];
  for (const connector of ['scim-sandbox', 'graph-sandbox']) {
    for (let i = 0; i < REQUESTS_PER_CONNECTOR; i++) {
      const accountId =
        connector === 'scim-sandbox' ? `truth.user${i}` : `truth.user${i}@contoso.example`;
      const answer = await test.api('POST', '/api/requests', {
        connector,
        account: { accountId, displayName: `Truth User ${i}` },
        actions: [{ type: 'create' }, { type: 'grant', groups: GROUPS[i % 2]! }],
      });
      expect(answer.status).toBe(202);
      ids.push(answer.body.requestId as string);
    }
  }
  const reports = await Promise.all(ids.map((id) => test.finished(id)));
  expect(reports.map((r) => r.status)).toEqual(ids.map(() => 'succeeded'));
  samples = await metricSamples(test);
}, 120_000);

afterAll(() => test.close());

describe('GET /api/metrics after a run with 429s, 5xx, replication lag and lost answers', () => {
  it('the faults were there: the sandboxes sent 429s and 5xx, and Graph served stale reads', () => {
    expect(sandboxes.scim.faultCounts()).toMatchObject({
      throttle: expect.any(Number),
      'server error': expect.any(Number),
    });
    for (const counts of [sandboxes.scim.faultCounts(), sandboxes.graph.faultCounts()]) {
      expect(counts.throttle + counts['server error']).toBeGreaterThan(0);
    }
    expect(sandboxes.graph.faultCounts()['stale read']).toBeGreaterThan(0);
    // Writes applied whose answers were lost: a reset (status 0 in the logs) or a 504. Which
    // call meets which fault depends on the order the concurrent requests reach the sandboxes,
    // so the counters below are checked against the logs, whatever was lost.
    expect(sandboxes.scim.faultCounts()['lost answer']).toBeGreaterThan(0);
    expect(sandboxes.graph.requests.filter((r) => r.answerLost === true).length).toBe(
      sandboxes.graph.faultCounts()['lost answer'] +
        sandboxes.graph.requests.filter((r) => r.viaBatch === true && r.answerLost === true).length,
    );
    expect(sandboxes.graph.faultCounts()['lost answer']).toBeGreaterThan(0);
  });

  it('counts every call each target served, by the class of its answer', () => {
    const scim = sandboxes.scim.requests;
    // A $batch is one call; its sub-requests are not calls of their own.
    const graph = sandboxes.graph.requests.filter((r) => r.viaBatch !== true);
    expect(
      sumBy(samples, 'provisioning_outbound_calls_total', 'provisioning_status_class', {
        provisioning_connector: 'scim-sandbox',
      }),
    ).toEqual(countBy(scim, (r) => classOf(r.status)));
    expect(
      sumBy(samples, 'provisioning_outbound_calls_total', 'provisioning_status_class', {
        provisioning_connector: 'graph-sandbox',
      }),
    ).toEqual(countBy(graph, (r) => classOf(r.status)));
  });

  it('counts every 429 each target sent, $batch sub-responses included', () => {
    // A 429 inside a $batch whose envelope's answer was lost never reached the service: the
    // sandbox's log marks it `answerLost`, and the metric does not count it.
    const sent = (requests: readonly { status: number; answerLost?: boolean }[]) =>
      requests.filter((r) => r.status === 429 && r.answerLost !== true).length;
    expect(
      sum('provisioning_throttle_responses_total', { provisioning_connector: 'scim-sandbox' }),
    ).toBe(sent(sandboxes.scim.requests));
    expect(
      sum('provisioning_throttle_responses_total', { provisioning_connector: 'graph-sandbox' }),
    ).toBe(sent(sandboxes.graph.requests));
    expect(sent(sandboxes.scim.requests) + sent(sandboxes.graph.requests)).toBeGreaterThan(0);
  });

  it('counts the requests and steps whose writes the targets committed', () => {
    for (const [connector, sandbox] of [
      ['scim-sandbox', sandboxes.scim],
      ['graph-sandbox', sandboxes.graph],
    ] as const) {
      const truth = countBy(sandbox.truthLog(), (event) => event.change);
      const labels = { provisioning_connector: connector, provisioning_outcome: 'succeeded' };
      expect(sum('provisioning_requests_total', labels)).toBe(REQUESTS_PER_CONNECTOR);
      expect(truth).toEqual({
        'account created': REQUESTS_PER_CONNECTOR,
        'member added': GRANTED.reduce((a, b) => a + b, 0),
      });
      // One grant step per account, however many groups it added.
      const granted = new Set(
        sandbox
          .truthLog()
          .filter((event) => event.change === 'member added')
          .map((event) => event.accountId),
      );
      expect(
        sum('provisioning_step_duration_count', { ...labels, provisioning_action: 'create' }),
      ).toBe(truth['account created']);
      expect(
        sum('provisioning_step_duration_count', { ...labels, provisioning_action: 'grant' }),
      ).toBe(granted.size);
    }
  });

  it('counts the re-reads Graph served after each verified write', () => {
    // Per user: every memberOf read Graph answered (200, or 404 while the new user did not
    // show yet), retried attempts (429, 5xx) left out. A new account's groups are not read
    // before the write (nothing to read), so each of them is a read-back.
    const users = sandboxes.graph
      .truthLog()
      .filter((event) => event.change === 'account created')
      .map((event) => event.userId);
    const rereads = users.map(
      (id) =>
        sandboxes.graph.requests.filter(
          (r) =>
            r.method === 'GET' &&
            r.path === `/v1.0/users/${id}/memberOf` &&
            (r.status === 200 || r.status === 404),
        ).length,
    );
    const labels = { provisioning_connector: 'graph-sandbox', provisioning_action: 'grant' };
    expect(sum('provisioning_verification_reads_count', labels)).toBe(users.length);
    expect(sum('provisioning_verification_reads_sum', labels)).toBe(
      rereads.reduce((a, b) => a + b, 0),
    );
    // Replication lag made at least one write need more than one read.
    expect(Math.max(...rereads)).toBeGreaterThan(1);
  });
});
