import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Planted-Passw0rd-7f3e91';
const QUEUED_PASSWORD = 'Queued-Passw0rd-c5a2d8';

async function everythingTheServiceKept(): Promise<string> {
  const journal = await t.api('GET', '/api/journal?limit=1000');
  const poison = await t.host.services.bulkQueue.peekPoison(32);
  return [
    ...t.logs,
    JSON.stringify(t.host.driver.snapshot()),
    JSON.stringify(journal.body),
    JSON.stringify(poison),
    ...t.answers,
  ].join('\n');
}

describe('secrets', () => {
  it('finds no password, bearer token or client secret in logs, orchestrations, the journal or answers', async () => {
    const sandboxes = t.host.sandboxes!;
    const requests = [
      {
        requestId: 'secret-scim',
        connector: 'scim-sandbox',
        account: { accountId: 'secret.user' },
        password: PASSWORD,
        actions: [
          { type: 'create' },
          { type: 'setPassword' },
          { type: 'grant', groups: ['Sales'] },
        ],
      },
      {
        requestId: 'secret-graph',
        connector: 'graph-sandbox',
        account: { accountId: 'secret.user@contoso.example' },
        password: PASSWORD,
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
      },
      {
        // Fails before it uses its password: the secret must still be deleted.
        requestId: 'secret-unused',
        connector: 'scim-sandbox',
        account: { accountId: 'nobody.here' },
        password: PASSWORD,
        actions: [{ type: 'setPassword' }],
      },
    ];
    for (const body of requests)
      expect((await t.api('POST', '/api/requests', body)).status).toBe(202);
    await t.host.services.bulkQueue.send({
      requestId: 'secret-queued',
      connector: 'scim-sandbox',
      account: { accountId: 'queued.user' },
      password: QUEUED_PASSWORD,
      actions: [{ type: 'create' }],
    });
    const reports = await Promise.all(
      ['secret-scim', 'secret-graph', 'secret-unused', 'secret-queued'].map((id) =>
        until(
          `request ${id} to end`,
          async () => {
            const answer = await t.api('GET', `/api/requests/${id}`);
            const ended =
              answer.status === 200 && ['succeeded', 'failed'].includes(answer.body.status);
            return ended ? answer.body : undefined;
          },
          { timeoutMs: 60_000 },
        ),
      ),
    );
    expect(reports.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'failed', 'succeeded']);

    const kept = await everythingTheServiceKept();
    const planted = {
      password: PASSWORD,
      queuedPassword: QUEUED_PASSWORD,
      bearerToken: sandboxes.secrets['scim-sandbox-token']!,
      clientSecret: sandboxes.secrets['graph-sandbox-client-secret']!,
    };
    // The scan sees what the service kept about these requests, so a leak would show.
    expect(kept).toContain('secret.user@contoso.example');
    expect(kept).toContain('request-password-');
    expect(t.logs.length).toBeGreaterThan(10);
    for (const [what, value] of Object.entries(planted)) {
      expect(kept.includes(value), `${what} found`).toBe(false);
    }

    // Passwords travel by reference and are deleted after use, or at the end when unused.
    const names = t.host.driver
      .snapshot()
      .map((instance) => (instance.input as { passwordSecret?: string }).passwordSecret)
      .filter((name): name is string => name !== undefined);
    expect(names).toHaveLength(4);
    for (const name of names) {
      await expect(t.host.services.secrets.get(name)).rejects.toMatchObject({
        code: 'SECRET_NOT_FOUND',
      });
    }
  });
});

describe('bad input', () => {
  const good = {
    connector: 'scim-sandbox',
    account: { accountId: 'bad.input' },
    actions: [{ type: 'lock' }],
  };

  async function nothingChanges(send: () => Promise<{ status: number; body: any }>) {
    const instances = t.host.driver.snapshot().length;
    const journal = (await t.api('GET', '/api/journal?limit=1000')).body.entries.length;
    const answer = await send();
    expect(t.host.driver.snapshot().length).toBe(instances);
    expect((await t.api('GET', '/api/journal?limit=1000')).body.entries.length).toBe(journal);
    return answer;
  }

  it('answers malformed JSON with 400', async () => {
    const answer = await nothingChanges(() =>
      t.api('POST', '/api/requests', undefined, { raw: '{"connector": ' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'REQUEST_INVALID',
      message: 'the request body is not valid JSON',
    });
  });

  it('answers unknown actions with 400 naming the action and its place', async () => {
    const answer = await nothingChanges(() =>
      t.api('POST', '/api/requests', { ...good, actions: [{ type: 'lock' }, { type: 'disable' }] }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.problems).toEqual([
      { path: 'actions.1.type', message: expect.stringContaining('unknown action "disable"') },
    ]);
  });

  it('answers an unknown connector with 404 and stores no password', async () => {
    const answer = await nothingChanges(() =>
      t.api('POST', '/api/requests', {
        ...good,
        connector: 'nope',
        password: PASSWORD,
        actions: [{ type: 'create' }],
      }),
    );
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({
      code: 'CONNECTOR_NOT_FOUND',
      message: 'unknown connector "nope"',
    });
  });

  it('answers an oversized body with 413', async () => {
    const answer = await nothingChanges(() =>
      t.api('POST', '/api/requests', {
        ...good,
        account: { accountId: 'big', displayName: 'x'.repeat(300 * 1024) },
      }),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('REQUEST_TOO_LARGE');
  });

  it.each(['bad\u0000id', 'bad\nid', ' padded', '   '])(
    'refuses the unusable account ID %j',
    async (accountId) => {
      const answer = await nothingChanges(() =>
        t.api('POST', '/api/requests', { ...good, account: { accountId } }),
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.problems[0].path).toBe('account.accountId');
    },
  );

  it('demands the API key', async () => {
    expect((await t.api('POST', '/api/requests', good, { key: null })).status).toBe(401);
    expect(
      (await t.api('POST', '/api/requests', good, { key: 'wrong-key-wrong-key' })).status,
    ).toBe(401);
    const byQuery = await fetch(`${t.host.url}/api/openapi.json?code=${t.host.apiKey}`);
    expect(byQuery.status).toBe(200);
  });

  it('answers unknown requests, jobs and connectors with 404', async () => {
    expect((await t.api('GET', '/api/requests/never-sent')).status).toBe(404);
    expect((await t.api('GET', '/api/jobs/9b2f8c1e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await t.api('POST', '/api/connectors/nope/status')).status).toBe(404);
    expect((await t.api('GET', '/api/connectors/nope/roles')).status).toBe(404);
  });

  it('refuses bad journal queries with 400', async () => {
    const answer = await t.api('GET', '/api/journal?from=yesterday&limit=5000');
    expect(answer.status).toBe(400);
    expect(answer.body.error.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      'from',
      'limit',
    ]);
  });
});

describe('reads', () => {
  it('serves the OpenAPI document, the status check and the account view', async () => {
    const openapi = await t.api('GET', '/api/openapi.json');
    expect(openapi.body.paths['/requests'].post).toBeDefined();
    const status = await t.api('POST', '/api/connectors/graph-sandbox/status');
    expect(status.body).toMatchObject({ connector: 'graph-sandbox', ok: true });
    const account = await t.api(
      'GET',
      '/api/connectors/graph-sandbox/accounts/adele.vance@contoso.example',
    );
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({
      account: { accountId: 'adele.vance@contoso.example', enabled: true },
      directMemberships: [expect.objectContaining({ displayName: 'Engineering' })],
      effectiveInheritedMemberships: [expect.objectContaining({ displayName: 'Sales' })],
    });
  });
});
