import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';
import { expectNoSecrets } from '../support/no-secrets';

/*
 * Issue 12, item 8: an auditor asks who asked, why, and under which ticket. The context a
 * request carries reaches its report and every journal entry, through the API and the bulk
 * queue, and the journal is filtered by it; it never meets a secret.
 */
let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Planted-Context-Pw-9';

const CONNECTORS = [
  ['scim-sandbox', 'context.user'],
  ['graph-sandbox', 'context.user@contoso.example'],
] as const;

describe.each(CONNECTORS)('the audit trail on %s', (connector, accountId) => {
  const context = {
    requestedBy: `Zoë O'Brien <zoe@example.test>`,
    reason: 'joiner: "new hire" in 営業',
    correlationId: `CHG-${connector}-0042`,
  };

  it('carries who, why and the case into the report and every journal entry, filterable', async () => {
    const submitted = await t.api('POST', '/api/requests', {
      connector,
      ...context,
      account: { accountId, displayName: 'Context User' },
      password: PASSWORD,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales', 'Support'] }],
    });
    expect(submitted.status, submitted.text).toBe(202);
    const requestId = submitted.body.requestId as string;
    const report = await t.finished(requestId);
    expect(report).toMatchObject({ status: 'succeeded', ...context });

    // Another request for the same account, with another case: not in the first case's journal.
    const other = await t.api('POST', '/api/requests', {
      connector,
      correlationId: `CHG-${connector}-0043`,
      requestedBy: 'iga-workflow',
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect((await t.finished(other.body.requestId as string)).status).toBe('succeeded');

    const byCase = await t.api(
      'GET',
      `/api/journal?correlationId=${encodeURIComponent(context.correlationId)}`,
    );
    expect(byCase.status).toBe(200);
    expect(byCase.body.entries.map((e: { change: string }) => e.change).sort()).toEqual([
      'account created',
      'member added',
      'member added',
    ]);
    for (const entry of byCase.body.entries) {
      expect(entry).toMatchObject({ requestId, connector, accountId, ...context });
    }
    const byRequester = await t.api(
      'GET',
      `/api/journal?connector=${connector}&requestedBy=iga-workflow`,
    );
    expect(byRequester.body.entries).toEqual([
      expect.objectContaining({ change: 'account locked', requestedBy: 'iga-workflow' }),
    ]);
    // No answer and no entry ever holds the password that came with the context.
    expectNoSecrets(t.answers.join('\n'), { password: PASSWORD }, 'the API answers');
  });
});

describe('the audit trail through the bulk queue', () => {
  it('carries the context of a queued request into its report and journal', async () => {
    const requestId = 'context-bulk-1';
    await t.host.services.bulkQueue.send({
      requestId,
      connector: 'scim-sandbox',
      requestedBy: 'nightly-recertification',
      reason: 'access review 2026-Q4',
      correlationId: 'REV-2026-Q4-17',
      account: { accountId: 'context.bulk' },
      actions: [{ type: 'create' }],
    });
    // The queue poller starts the orchestration when it takes the message.
    await until('the queued request to start', async () =>
      (await t.api('GET', `/api/requests/${requestId}`)).status === 404 ? undefined : true,
    );
    await t.host.driver.waitFor(requestInstanceId(requestId), 60_000);
    const report = await t.api('GET', `/api/requests/${requestId}`);
    expect(report.body).toMatchObject({
      status: 'succeeded',
      requestedBy: 'nightly-recertification',
      correlationId: 'REV-2026-Q4-17',
    });
    const journal = await t.api('GET', '/api/journal?correlationId=REV-2026-Q4-17');
    expect(journal.body.entries).toEqual([
      expect.objectContaining({
        requestId,
        change: 'account created',
        reason: 'access review 2026-Q4',
      }),
    ]);
  });
});

describe('the context in the contract', () => {
  it('refuses a context with a control character, naming the field, and starts nothing', async () => {
    const answer = await t.api('POST', '/api/requests', {
      connector: 'scim-sandbox',
      correlationId: 'CHG-1\r\nInjected: header',
      account: { accountId: 'context.refused' },
      actions: [{ type: 'create' }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.problems).toEqual([
      { path: 'correlationId', message: expect.stringContaining('control characters') },
    ]);
    expect(t.host.sandboxes!.scim.getUser('context.refused')).toBeUndefined();
  });

  it('is described in the OpenAPI document: request fields, report, journal filters', async () => {
    const openapi = (await t.api('GET', '/api/openapi.json')).body;
    const request = openapi.components.schemas.ProvisioningRequest.properties;
    expect(Object.keys(request)).toEqual(
      expect.arrayContaining(['requestedBy', 'reason', 'correlationId']),
    );
    expect(openapi.components.schemas.JournalEntry.properties).toHaveProperty('correlationId');
    const filters = openapi.paths['/journal'].get.parameters.map((p: { name: string }) => p.name);
    expect(filters).toEqual(expect.arrayContaining(['correlationId', 'requestedBy']));
    expect(filters).toEqual(expect.arrayContaining(['recordedFrom', 'recordedTo']));
    expect(openapi.components.schemas.JournalEntry.properties).toHaveProperty('recordedAt');
  });

  it('pages by record time: each entry says when it was written, each answer how far it is complete', async () => {
    const before = Date.now();
    const answer = await t.api('GET', '/api/journal?recordedFrom=2020-01-01T00:00:00Z');
    expect(answer.status).toBe(200);
    // Never closer to now than a write may take to show (a minute).
    expect(Date.parse(answer.body.recordedTo)).toBeLessThanOrEqual(Date.now() - 60_000);
    expect(Date.parse(answer.body.recordedTo)).toBeGreaterThanOrEqual(before - 60_000);
    const all = await t.api('GET', '/api/journal?limit=1000');
    for (const entry of all.body.entries) {
      expect(Date.parse(entry.recordedAt)).toBeGreaterThanOrEqual(Date.parse(entry.at) - 1_000);
    }
    const csv = await fetch(`${t.host.url}/api/journal?recordedFrom=2020-01-01T00:00:00Z`, {
      headers: { accept: 'text/csv', 'x-functions-key': t.host.apiKey },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('x-journal-recorded-to')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const bad = await t.api('GET', '/api/journal?recordedFrom=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('recordedFrom');
    const unanchored = await t.api(
      'GET',
      '/api/journal?recordedFrom=2020-01-01T00:00:00Z&continuationToken=eyJ9',
    );
    expect(unanchored.status).toBe(400);
    expect(JSON.stringify(unanchored.body)).toContain('recordedTo');
  });
});
