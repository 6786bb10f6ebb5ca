import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { reconcile, scimAdmin } from './drift-harness';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';
import { expectNoSecrets } from '../support/no-secrets';

/**
 * GET /api/health (issue 19): storage, the secret store and each connector's last known
 * state, as the service's own stores and the sandboxes hold it, never a secret; and the
 * anonymous liveness answer that reveals nothing.
 */

let t: TestHost;
type Health = {
  status: string;
  reasons: string[];
  storage: { status: string };
  secretStore: { status: string };
  connectors: {
    name: string;
    kind: string;
    expiringCredential: boolean;
    credential?: { daysLeft: number; expired: boolean; source: string };
    quarantine?: { state: string; reason?: { code: string }; heldRequests: number };
    lastStatusCheck?: { ok: boolean; error?: { code: string } };
    lastImport?: { ok: boolean; groups?: number; mode?: string };
    lastReconciliation?: {
      ok: boolean;
      jobId: string;
      mode?: string;
      found?: number;
      open?: number;
    };
  }[];
};
let before: Health;
let after: Health;
let heldRequestId: string;
let reconciliation: { jobId: string; mode: string };

const connector = (health: Health, name: string) => health.connectors.find((c) => c.name === name)!;

beforeAll(async () => {
  t = await startTestHost();
  before = (await t.api('GET', '/api/health')).body as Health;

  expect((await t.api('POST', '/api/connectors/scim-sandbox/status')).body.ok).toBe(true);
  const started = await t.api('POST', '/api/connectors/scim-sandbox/imports', {});
  expect(started.status).toBe(202);
  await until('the import job', async () => {
    const job = await t.api('GET', `/api/jobs/${started.body.jobId as string}`);
    return job.body.status === 'running' ? undefined : job.body;
  });

  // A member added by hand that the service does not know: the reconciliation finds it.
  const admin = scimAdmin(t);
  await admin.createUser('health.outsider');
  await admin.addMember(t.host.sandboxes!.scimGroups['Sales']!, 'health.outsider');
  reconciliation = await reconcile(t, 'scim-sandbox');

  // Graph refuses the service's secret: the status check fails, a request quarantines it.
  const store = t.host.services.secrets as LocalSecretStore;
  await store.set('graph-sandbox-client-secret', 'not-the-secret-graph-knows-9d2e');
  expect((await t.api('POST', '/api/connectors/graph-sandbox/status')).body.ok).toBe(false);
  const request = await t.api('POST', '/api/requests', {
    connector: 'graph-sandbox',
    account: { accountId: 'health.subject@contoso.example' },
    actions: [{ type: 'lock' }],
  });
  heldRequestId = request.body.requestId as string;
  await until('the request held', async () => {
    const report = (await t.api('GET', `/api/requests/${heldRequestId}`)).body;
    return report.hold === undefined ? undefined : report;
  });
  after = (await t.api('GET', '/api/health')).body as Health;
}, 120_000);

afterAll(async () => {
  await t.close();
});

describe('GET /api/health', () => {
  it('before anything ran: ok, every configured connector listed with nothing seen yet', () => {
    expect(before).toMatchObject({
      status: 'ok',
      reasons: [],
      storage: { status: 'ok' },
      secretStore: { status: 'ok' },
    });
    expect(before.connectors.map((c) => [c.name, c.kind, c.expiringCredential])).toEqual(
      expect.arrayContaining([
        ['scim-sandbox', 'scim', false],
        ['graph-sandbox', 'graph', true],
      ]),
    );
    for (const c of before.connectors) {
      expect(c.lastReconciliation).toBeUndefined();
      expect(c.lastStatusCheck).toBeUndefined();
      expect(c.lastImport).toBeUndefined();
      expect(c.quarantine).toBeUndefined();
    }
  });

  it('keeps the last status check and the last import, with the groups the target holds', () => {
    const scim = connector(after, 'scim-sandbox');
    expect(scim.lastStatusCheck?.ok).toBe(true);
    expect(scim.lastImport).toMatchObject({ ok: true });
    expect(scim.lastImport?.groups).toBe(t.host.sandboxes!.scim.listGroups().length);
  });

  it('keeps the last reconciliation: the outside change made by hand, found and open', () => {
    expect(connector(after, 'scim-sandbox').lastReconciliation).toMatchObject({
      ok: true,
      jobId: reconciliation.jobId,
      mode: reconciliation.mode,
      found: 1,
      open: 1,
    });
    expect(connector(after, 'graph-sandbox').lastReconciliation).toBeUndefined();
  });

  it('shows the refused check and the quarantine as the shared store holds it, and is degraded', async () => {
    const graph = connector(after, 'graph-sandbox');
    expect(graph.lastStatusCheck).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_TOKEN_FAILED' },
    });
    const [stored] = await t.host.services.quarantine.list();
    expect(stored).toMatchObject({ connector: 'graph-sandbox', quarantined: true });
    const held = await t.host.services.quarantine.held('graph-sandbox');
    expect(held.map((h) => h.requestId)).toEqual([heldRequestId]);
    expect(graph.quarantine).toMatchObject({
      state: 'quarantined',
      reason: { code: stored!.reason.code },
      heldRequests: 1,
    });
    expect(after.status).toBe('degraded');
    expect(after.reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^connector graph-sandbox: quarantined since .* \(GRAPH_TOKEN_FAILED\)$/,
        ),
        'connector graph-sandbox: the last status check failed',
      ]),
    );
  });

  it('carries no secret', () => {
    expectNoSecrets(
      [before, after],
      {
        ...t.host.sandboxes!.secrets,
        'wrong client secret': 'not-the-secret-graph-knows-9d2e',
        'API key': t.host.apiKey,
      },
      'the health answers',
    );
  });

  it('needs the API key', async () => {
    expect((await t.api('GET', '/api/health', undefined, { key: null })).status).toBe(401);
  });
});

describe('GET /api/health/live', () => {
  it('answers anyone, and says nothing but that the process answers', async () => {
    const answer = await fetch(`${t.host.url}/api/health/live`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'alive' });
  });
});
