import { describe, expect, it } from 'vitest';
import { describeDuration } from '../../../src/domain/quarantine';
import { benchApi } from '../../support/api-calls';
import {
  atVirtualTime,
  firstResumeAt,
  truthCounts,
  until,
  untilHeldOrDone,
  untilQuarantined,
} from '../../support/quarantine-watch';
import { GRAPH, SCIM, useServiceBench } from '../../support/service-bench';
import { expectNoSecrets } from '../../support/no-secrets';

/*
 * Issue 14, Quarantine, released by an operator: the Graph app's client secret is revoked
 * mid-run. Tokens last 60 s here (MSAL renews any token that has less than five minutes
 * left, so each call asks for one): the next call meets `invalid_client`, the connector is
 * quarantined, its requests are held. The probe is an hour away, so only the operator's
 * `POST /api/connectors/{name}/release` (once the secret is restored) lets them go on; each
 * ends succeeded, once, judged by the directory's truth log and the journal.
 */
const bench = useServiceBench({
  connectorSettings: (settings) =>
    settings.name === GRAPH
      ? { ...settings, quarantine: { ...settings.quarantine, firstProbeSeconds: 3600 } }
      : // One retry per call: an outage is counted in real seconds, not tens of them.
        { ...settings, maxRetries: 1 },
});
const api = benchApi(bench);
const REQUESTS = 50;

describe('a Graph connector whose client secret is revoked mid-run', () => {
  it('is quarantined, holds its 50 requests, and an operator releases them: each ends succeeded, once', async () => {
    const { graph, secrets } = bench.sandboxes;
    const { clientId } = bench.runtime.services.registry.settings(GRAPH) as unknown as {
      clientId: string;
    };
    const secret = secrets['graph-sandbox-client-secret']!;
    graph.setTokenLifetime(60);
    const accounts = Array.from({ length: REQUESTS }, (_, n) => `held.graph.${n}@contoso.example`);
    const truthFrom = graph.truthLog().length;
    const ids = await Promise.all(
      accounts.map((accountId) =>
        bench.submit({
          connector: GRAPH,
          account: { accountId, displayName: accountId },
          actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
        }),
      ),
    );
    await until('40 changes committed', () =>
      graph.truthLog().length - truthFrom >= 40 ? true : undefined,
    );
    graph.setClientSecret(clientId, 'revoked-by-the-admin-55c1');

    const quarantine = await untilQuarantined(bench, GRAPH);
    const held = await untilHeldOrDone(bench, ids);
    expect(held.length).toBeGreaterThan(0);
    expect(quarantine.reason).toMatchObject({
      code: 'GRAPH_TOKEN_FAILED',
      message: expect.stringContaining('invalid_client (AADSTS7000215)'),
    });
    const listed = await api('listConnectors');
    const graphListed = (
      listed.jsonBody as { connectors: { name: string; quarantine: unknown }[] }
    ).connectors.find((connector) => connector.name === GRAPH);
    expect(graphListed?.quarantine).toMatchObject({
      state: 'quarantined',
      since: quarantine.since,
      reason: { code: 'GRAPH_TOKEN_FAILED' },
      heldRequests: held.length,
    });
    expectNoSecrets(listed.jsonBody, { secret }, 'the list');

    // The admin puts the secret back; the operator releases the connector.
    graph.setClientSecret(clientId, secret);
    const releasedAt = bench.clock.now();
    const released = await api('releaseConnector', { name: GRAPH });
    expect(released.status).toBe(200);
    expect(released.jsonBody).toMatchObject({
      connector: GRAPH,
      released: true,
      quarantine: { state: 'active', releasedBy: 'operator' },
    });
    const reports = await Promise.all(ids.map((id) => bench.finish(id, 120_000)));

    expect(reports.filter((report) => report.status !== 'succeeded')).toEqual([]);
    const counts = truthCounts(graph.truthLog().slice(truthFrom));
    expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);
    expect(counts.size).toBe(REQUESTS * 2);
    for (const accountId of accounts) {
      const journal = await bench.journal(GRAPH, accountId);
      expect(journal.map((entry) => entry.change).sort()).toEqual([
        'account created',
        'member added',
      ]);
    }
    const heldReport = reports.find((report) => report.requestId === held[0])!;
    expect(heldReport.steps.flatMap((step) => step.notices).join('\n')).toContain(
      'an operator released it',
    );
    // A second release finds nothing to release.
    const again = await api('releaseConnector', { name: GRAPH });
    expect(again.jsonBody).toMatchObject({ released: false, quarantine: { heldRequests: 0 } });

    const resumed = firstResumeAt(bench, held);
    process.stdout.write(
      `quarantine (Graph, operator): ${held.length} of ${REQUESTS} held; first held request ` +
        `resumed ${describeDuration(resumed - releasedAt)} after the release; lost 0, doubled 0\n`,
    );
    expect(resumed).toBeGreaterThanOrEqual(releasedAt);
  }, 120_000);

  it('answers 404 for the release of a connector that does not exist', async () => {
    const answer = await api('releaseConnector', { name: 'nowhere' });
    expect(answer.status).toBe(404);
  });
});

describe('a SCIM target that answers 503 to every call', () => {
  it('is quarantined after its failureThreshold of failures in a row, and released by the probe once it answers', async () => {
    const { scim } = bench.sandboxes;
    const truthFrom = scim.truthLog().length;
    scim.setFaults({ seed: 14, serverErrorRate: 1 });
    const accounts = ['outage.one', 'outage.two', 'outage.three', 'outage.four'];
    const ids = await Promise.all(
      accounts.map((accountId) =>
        bench.submit({ connector: SCIM, account: { accountId }, actions: [{ type: 'create' }] }),
      ),
    );
    const quarantine = await untilQuarantined(bench, SCIM);
    expect(quarantine.reason).toMatchObject({
      code: 'TARGET_UNAVAILABLE',
      message: expect.stringContaining('answered 50'),
    });
    await untilHeldOrDone(bench, ids);
    expect(scim.truthLog().length).toBe(truthFrom);

    await atVirtualTime(bench, Date.parse(quarantine.since) + 60_000, () =>
      scim.setFaults(undefined),
    );
    const reports = await Promise.all(ids.map((id) => bench.finish(id, 60_000)));

    expect(reports.map((report) => report.status)).toEqual(accounts.map(() => 'succeeded'));
    const counts = truthCounts(scim.truthLog().slice(truthFrom));
    expect([...counts.entries()].sort()).toEqual(
      accounts.map((accountId) => [`${accountId} account created `, 1]).sort(),
    );
    const state = await bench.runtime.services.quarantine.get(SCIM);
    expect(state).toMatchObject({ quarantined: false, releasedBy: 'probe' });
    expect(state!.probes).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
