import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProvisioningRequest } from '../../src/domain/provisioning-request';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * F7: who the service saw submit a request is recorded beside the `requestedBy` the caller
 * writes: the signed-in principal's name, or the key. An auditor finds it in the request's
 * input and report, in every journal entry (API and CSV) and in the request list.
 */

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({}, { signedInCallers: true });
});
afterAll(async () => {
  await t?.close();
});

/** The `x-ms-client-principal` App Service Authentication sends for a signed-in operator. */
const principal = (name: string) =>
  Buffer.from(
    JSON.stringify({
      auth_typ: 'aad',
      name_typ: 'name',
      role_typ: 'roles',
      claims: [
        { typ: 'name', val: name },
        { typ: 'roles', val: 'Provisioning.Operator' },
      ],
    }),
  ).toString('base64');

async function submitSignedIn(name: string, body: unknown) {
  const response = await fetch(`${t.host.url}/api/signed-in/requests`, {
    method: 'POST',
    headers: { 'x-ms-client-principal': principal(name), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Everything the service shows of a request: input, report, journal (API and CSV), list entry. */
async function recordOf(requestId: string, accountId: string) {
  const state = await t.host.driver.waitFor(requestInstanceId(requestId), 60_000);
  const report = await t.finished(requestId);
  const journal = await t.api('GET', `/api/journal?requestId=${requestId}`);
  const csv = await fetch(`${t.host.url}/api/journal?requestId=${requestId}`, {
    headers: { 'x-functions-key': t.host.apiKey, accept: 'text/csv' },
  });
  const list = await t.api('GET', `/api/requests?accountId=${encodeURIComponent(accountId)}`);
  return {
    input: state.input as ProvisioningRequest,
    report,
    entries: journal.body.entries as {
      change: string;
      requestedBy?: string;
      submittedBy?: string;
    }[],
    csv: (await csv.text()).trim().split('\r\n'),
    listed: (list.body.requests as { requestId: string; submittedBy?: string }[]).find(
      (r) => r.requestId === requestId,
    ),
  };
}

describe('who submitted a request', () => {
  it('records the signed-in principal beside the requestedBy it typed, everywhere an auditor looks', async () => {
    const submitted = await submitSignedIn('bob@contoso.example', {
      requestId: 'by-bob',
      connector: 'scim-sandbox',
      requestedBy: 'alice@contoso.example',
      reason: 'approved by manager',
      account: { accountId: 'by.bob' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Finance'] }],
    });
    expect(submitted.status).toBe(202);
    const record = await recordOf('by-bob', 'by.bob');
    expect(record.report.status).toBe('succeeded');
    // The target holds what the journal describes: an account and one membership.
    const truth = t.host.sandboxes!.scim.truthLog().filter((e) => e.accountId === 'by.bob');
    expect(truth.map((e) => e.change).sort()).toEqual(['account created', 'member added']);
    expect(record.input).toMatchObject({
      requestedBy: 'alice@contoso.example',
      submittedBy: 'bob@contoso.example',
    });
    expect(record.report).toMatchObject({
      requestedBy: 'alice@contoso.example',
      submittedBy: 'bob@contoso.example',
    });
    expect(record.entries.map((e) => e.change).sort()).toEqual(['account created', 'member added']);
    for (const entry of record.entries) {
      expect(entry).toMatchObject({
        requestedBy: 'alice@contoso.example',
        submittedBy: 'bob@contoso.example',
      });
    }
    const [header, ...rows] = record.csv;
    const column = header!.split(',').indexOf('submittedBy');
    expect(column).toBeGreaterThan(0);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split(',')[column]).toBe('bob@contoso.example');
    expect(record.listed).toMatchObject({ submittedBy: 'bob@contoso.example' });
  }, 60_000);

  it('records a key holder as the key, and no caller can write submittedBy itself', async () => {
    const answer = await t.api('POST', '/api/requests', {
      requestId: 'by-key',
      connector: 'scim-sandbox',
      requestedBy: 'workflow-7',
      account: { accountId: 'by.key' },
      actions: [{ type: 'create' }],
    });
    expect(answer.status).toBe(202);
    const record = await recordOf('by-key', 'by.key');
    expect(record.report).toMatchObject({
      requestedBy: 'workflow-7',
      submittedBy: 'local API key',
    });
    expect(record.entries).toEqual([
      expect.objectContaining({ change: 'account created', submittedBy: 'local API key' }),
    ]);
    expect(record.listed).toMatchObject({ submittedBy: 'local API key' });

    const forged = await submitSignedIn('mallory@contoso.example', {
      connector: 'scim-sandbox',
      submittedBy: 'alice@contoso.example',
      account: { accountId: 'by.forged' },
      actions: [{ type: 'create' }],
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.problems).toEqual([
      expect.objectContaining({ path: '(body)', message: expect.stringContaining('submittedBy') }),
    ]);
    expect(t.host.sandboxes!.scim.getUser('by.forged')).toBeUndefined();
  }, 60_000);
});
