import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogues, provision, reconcile, report, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18, bad input: an unknown connector is 404, a malformed filter 400 naming the field,
 * a restore of a closed or unknown finding 409 / 404; and in none of these does anything
 * start (no job, no request, no call to either sandbox).
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let closedId: string;

beforeAll(async () => {
  t = await startTestHost();
  await importCatalogues(t);
  await provision(t, {
    connector: SCIM,
    account: { accountId: 'gil' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
  });
  t.clock.advanceBy(5 * 60_000);
  const admin = scimAdmin(t);
  const groups = t.host.sandboxes!.scimGroups;
  await admin.addMember(groups['Finance']!, 'gil');
  await reconcile(t, SCIM);
  await admin.removeMember(groups['Finance']!, 'gil');
  t.clock.advanceBy(60_000);
  await reconcile(t, SCIM);
  const closed = await report(t, SCIM, { status: 'closed' });
  expect(closed).toHaveLength(1);
  closedId = closed[0]!.findingId;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** What has started so far: the local host's instances (jobs and requests) and the sandboxes' calls. */
const started = () => {
  const { scim, graph } = t.host.sandboxes!;
  return {
    instances: t.host.driver.snapshot().length,
    scim: scim.requests.length,
    graph: graph.requests.length,
  };
};

/** Nothing started since `before`: no instance, and no call reached either sandbox. */
function expectNothingStarted(before: ReturnType<typeof started>): void {
  const { scim, graph } = t.host.sandboxes!;
  expect(t.host.driver.snapshot().length).toBe(before.instances);
  expect(scim.requests.slice(before.scim)).toEqual([]);
  expect(graph.requests.slice(before.graph)).toEqual([]);
}

describe('bad input to reconciliation and the drift report', () => {
  it('answers 404 for an unknown connector on every drift route, starting nothing', async () => {
    const before = started();
    // The logs do record calls: the requests of beforeAll are there.
    expect(before.scim).toBeGreaterThan(0);
    for (const [method, path] of [
      ['POST', '/api/connectors/nope/reconciliations'],
      ['GET', '/api/connectors/nope/drift'],
      ['POST', '/api/connectors/nope/drift/restore'],
    ] as const) {
      const answer = await t.api(
        method,
        path,
        method === 'POST' ? { findingIds: ['x'] } : undefined,
      );
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'CONNECTOR_NOT_FOUND', object: 'nope' });
    }
    expectNothingStarted(before);
  });

  it('answers 400 naming the field for a malformed filter or body', async () => {
    const before = started();
    for (const [query, field] of [
      ['type=memberAdded', 'type'],
      ['status=pending', 'status'],
      ['limit=0', 'limit'],
      ['accountid=gil', 'accountid'],
    ] as const) {
      const answer = await t.api('GET', `/api/connectors/${SCIM}/drift?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('REQUEST_INVALID');
      const named = answer.body.error.problems.map(
        (p: { path: string; message: string }) => `${p.path} ${p.message}`,
      );
      expect(named.join('\n'), query).toContain(field);
    }
    const options = await t.api('POST', `/api/connectors/${SCIM}/reconciliations`, { full: true });
    expect(options.status).toBe(400);
    const neither = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {});
    expect(neither.status).toBe(400);
    expect(neither.body.error.problems[0].path).toBe('findingIds');
    const both = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: [closedId],
      filter: {},
    });
    expect(both.status).toBe(400);
    const badType = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      filter: { type: 'everything' },
    });
    expect(badType.body.error.problems[0].path).toBe('filter.type');
    expectNothingStarted(before);
  });

  it('refuses to restore a closed finding (409) or an unknown one (404), and starts nothing', async () => {
    const before = started();
    const closed = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: [closedId],
    });
    expect(closed.status).toBe(409);
    expect(closed.body.error).toMatchObject({ code: 'DRIFT_FINDING_CLOSED', object: closedId });
    const unknown = await t.api('POST', `/api/connectors/${SCIM}/drift/restore`, {
      findingIds: ['0000000000000-000000000000'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('DRIFT_FINDING_NOT_FOUND');
    expectNothingStarted(before);
    const list = await t.api('GET', `/api/requests?connector=${SCIM}&accountId=gil`);
    expect(list.body.requests).toHaveLength(1);
  });
});
