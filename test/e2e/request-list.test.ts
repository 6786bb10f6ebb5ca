import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../src/runtime/local-host/history-events';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestHost, type TestHost } from './local-host-harness';

// GET /api/requests on the local host: the index written at submission and at the end of
// each orchestration, with the live state of requests that have not ended.

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

async function submit(
  connector: string,
  accountId: string,
  actions: unknown[],
  context: Record<string, string> = {},
) {
  const answer = await t.api('POST', '/api/requests', {
    connector,
    account: { accountId, displayName: accountId },
    actions,
    ...context,
  });
  expect(answer.status).toBe(202);
  return answer.body.requestId as string;
}

const ids = (body: { requests: { requestId: string }[] }) => body.requests.map((r) => r.requestId);

describe('the request list', () => {
  const submitted: string[] = [];
  beforeAll(async () => {
    submitted.push(await submit('scim-sandbox', 'list.one', [{ type: 'create' }]));
    t.clock.advanceBy(1_000);
    submitted.push(
      await submit(
        'graph-sandbox',
        'list.two@contoso.example',
        [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
        { requestedBy: 'ada@contoso.example', correlationId: 'CHG-2' },
      ),
    );
    t.clock.advanceBy(1_000);
    // Fails: the account does not exist.
    submitted.push(await submit('scim-sandbox', 'list.missing', [{ type: 'lock' }]));
    for (const id of submitted) await t.finished(id);
  });

  it('lists newest first with the actions, the source and how each ended', async () => {
    const answer = await t.api('GET', '/api/requests');
    expect(answer.status).toBe(200);
    expect(ids(answer.body)).toEqual([...submitted].reverse());
    expect(answer.body.requests[1]).toMatchObject({
      requestId: submitted[1],
      connector: 'graph-sandbox',
      accountId: 'list.two@contoso.example',
      actions: ['create', 'grant'],
      requestedBy: 'ada@contoso.example',
      correlationId: 'CHG-2',
      source: 'http',
      status: 'succeeded',
      receivedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(answer.body.requests[0].status).toBe('failed');
  });

  it('filters by connector, account and status, and pages', async () => {
    expect(ids((await t.api('GET', '/api/requests?connector=scim-sandbox')).body)).toEqual([
      submitted[2],
      submitted[0],
    ]);
    expect(ids((await t.api('GET', '/api/requests?accountId=list.one')).body)).toEqual([
      submitted[0],
    ]);
    expect(
      ids((await t.api('GET', '/api/requests?connector=graph-sandbox&accountId=list.one')).body),
    ).toEqual([]);
    expect(ids((await t.api('GET', '/api/requests?status=failed')).body)).toEqual([submitted[2]]);
    const first = await t.api('GET', '/api/requests?limit=2');
    expect(ids(first.body)).toEqual([submitted[2], submitted[1]]);
    const second = await t.api(
      'GET',
      `/api/requests?limit=2&continuationToken=${first.body.continuationToken}`,
    );
    expect(ids(second.body)).toEqual([submitted[0]]);
    const bad = await t.api('GET', '/api/requests?status=done&limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      'limit',
      'status',
    ]);
  });

  it('indexes each request once: at submission, then its end, written by the orchestration', async () => {
    const services = t.host.services;
    for (const id of submitted) {
      const entries = (await services.requests.query({})).entries.filter((e) => e.requestId === id);
      expect(entries).toHaveLength(1);
      expect(entries[0]!.status).not.toBe('pending');
      // The end is written by the last step's commit (its answer says `indexed`), else by
      // indexRequestEnd: once either way.
      const history = t.host.driver.history(requestInstanceId(id));
      const indexCalls = history.filter(
        (event) => (event as { Name?: string }).Name === 'indexRequestEnd',
      );
      const indexedCommits = history.filter(
        (event) =>
          event.EventType === HISTORY_EVENT.TaskCompleted &&
          (JSON.parse(event.Result) as { value?: { indexed?: boolean } }).value?.indexed === true,
      );
      expect(indexCalls.length + indexedCommits.length).toBe(1);
      await t.host.driver.verifyReplay(requestInstanceId(id));
    }
  });

  it('shows a request that has not ended as the orchestration has it, live', async () => {
    const scim = t.host.sandboxes!.scim;
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', latencyMs: 400 });
    const id = await submit('scim-sandbox', 'list.slow', [{ type: 'create' }]);
    const listed = await t.api('GET', '/api/requests?accountId=list.slow');
    expect(['pending', 'running']).toContain(listed.body.requests[0].status);
    const running = await t.api('GET', `/api/requests?status=${listed.body.requests[0].status}`);
    expect(ids(running.body)).toContain(id);
    await t.finished(id);
    scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    const ended = await t.api('GET', '/api/requests?status=succeeded&accountId=list.slow');
    expect(ids(ended.body)).toEqual([id]);
  });

  it('is reached with a key, and not signed in where App Service Authentication is off', async () => {
    expect((await t.api('GET', '/api/requests', undefined, { key: null })).status).toBe(401);
    const signedIn = await fetch(`${t.host.url}/api/signed-in/requests`, {
      headers: {
        'x-ms-client-principal': Buffer.from(
          JSON.stringify({ claims: [{ typ: 'roles', val: 'Provisioning.Operator' }] }),
        ).toString('base64'),
      },
    });
    expect(signedIn.status).toBe(401);
    expect(((await signedIn.json()) as { error: { code: string } }).error.code).toBe(
      'UNAUTHORIZED',
    );
    const me = await t.api('GET', '/api/me');
    expect(me.body).toEqual({
      kind: 'function key',
      roles: ['Provisioning.Reader', 'Provisioning.Operator'],
    });
    const openapi = await t.api('GET', '/api/openapi.json');
    expect(openapi.body.paths['/requests'].get['x-app-role']).toBe('Provisioning.Reader');
    expect(openapi.body.paths['/requests'].post['x-app-role']).toBe('Provisioning.Operator');
  });
});
