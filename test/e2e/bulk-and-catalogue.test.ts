import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';
import { expectNoSecrets } from '../support/no-secrets';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

describe('bulk requests through the storage queue', () => {
  it('runs 97 good messages and moves the 3 malformed ones to the poison queue with the reason', async () => {
    const queue = t.host.services.bulkQueue;
    const good = Array.from({ length: 97 }, (_, i) => {
      const connector = i % 2 === 0 ? 'scim-sandbox' : 'graph-sandbox';
      const accountId =
        connector === 'scim-sandbox' ? `bulk.user${i}` : `bulk.user${i}@contoso.example`;
      return {
        requestId: `bulk-${i}`,
        connector,
        account: { accountId, displayName: `Bulk User ${i}` },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Support'] }],
      };
    });
    const bad: unknown[] = [
      '{"connector": "scim-sandbox", "account": ',
      { connector: 'scim-sandbox', account: { accountId: 'x' }, actions: [{ type: 'promote' }] },
      {
        connector: 'no-such-connector',
        account: { accountId: 'x' },
        actions: [{ type: 'create' }],
        password: 'Planted-Bulk-Pw1',
      },
    ];
    const messages = [
      ...good.slice(0, 40),
      bad[0],
      ...good.slice(40, 70),
      bad[1],
      ...good.slice(70),
      bad[2],
    ];
    await Promise.all(messages.map((message) => queue.send(message)));

    // Each of the three, with its reason. Under load a message can be taken a second time
    // before its delete lands (queues deliver at least once): a second record of the same one
    // is harmless, and no request runs twice.
    const poisoned = await until('the 3 malformed messages poisoned', async () => {
      const records = await queue.peekPoison(32);
      return new Set(records.map((record) => record.reason)).size >= 3 ? records : undefined;
    });
    expect([...new Set(poisoned.map((record) => record.reason))].sort()).toEqual(
      [
        expect.stringContaining('invalid request: actions.0.type: unknown action "promote"'),
        'the message is not a JSON object',
        'unknown connector "no-such-connector"',
      ].sort(),
    );
    expectNoSecrets(poisoned, { password: 'Planted-Bulk-Pw1' }, 'the poison queue');

    const reports = await Promise.all(
      good.map((message) => t.host.driver.waitFor(requestInstanceId(message.requestId), 120_000)),
    );
    const outputs = reports.map((state) => (state.output as { status: string }).status);
    expect(outputs.filter((status) => status === 'succeeded')).toHaveLength(97);
    const journal = await t.api('GET', '/api/journal?connector=scim-sandbox&limit=1000');
    expect(
      journal.body.entries.filter((e: { requestId: string }) => e.requestId.startsWith('bulk-')),
    ).toHaveLength(49 * 2);
  }, 180_000);
});

describe('catalogue import jobs', () => {
  async function runImport(overwriteExisting: boolean) {
    const started = await t.api('POST', '/api/connectors/scim-sandbox/imports', {
      overwriteExisting,
    });
    expect(started.status).toBe(202);
    expect(started.body.type).toBe('Import SCIM groups');
    return until('the import job', async () => {
      const job = await t.api('GET', `/api/jobs/${started.body.jobId}`);
      return job.body.status === 'running' ? undefined : job.body;
    });
  }

  async function renameOnTarget(from: string, to: string) {
    const scim = t.host.sandboxes!.scim;
    const group = scim.getGroup(from) as { id: string };
    const token = t.host.sandboxes!.secrets['scim-sandbox-token'];
    const response = await fetch(`${scim.endpoint}/Groups/${group.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'displayName', value: to }],
      }),
    });
    expect(response.status).toBeLessThan(300);
    return group.id;
  }

  it('imports, keeps a renamed role without overwrite, renames it with overwrite, marks gone groups', async () => {
    const first = await runImport(false);
    expect(first).toMatchObject({ status: 'succeeded', result: { added: 6, renamed: 0 } });
    const roles = await t.api('GET', '/api/connectors/scim-sandbox/roles');
    expect(roles.body.roles.map((r: { displayName: string }) => r.displayName)).toEqual(
      expect.arrayContaining([
        'Engineering',
        'Sales',
        'Finance',
        'Human Resources',
        'Support',
        'Marketing',
      ]),
    );

    const id = await renameOnTarget('Marketing', 'Brand & Marketing');
    const kept = await runImport(false);
    expect(kept.result).toMatchObject({ added: 0, renamed: 0, renameSkipped: 1 });
    const afterKept = await t.api('GET', '/api/connectors/scim-sandbox/roles?search=marketing');
    expect(afterKept.body.roles).toEqual([
      expect.objectContaining({
        groupId: id,
        displayName: 'Marketing',
        targetName: 'Brand & Marketing',
      }),
    ]);

    const gone = t.host.sandboxes!.scim.getGroup('Human Resources') as { id: string };
    const token = t.host.sandboxes!.secrets['scim-sandbox-token'];
    const deleted = await fetch(`${t.host.sandboxes!.scim.endpoint}/Groups/${gone.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(204);

    const renamed = await runImport(true);
    expect(renamed.result).toMatchObject({ renamed: 1, markedGone: 1 });
    const afterRename = await t.api('GET', '/api/connectors/scim-sandbox/roles?search=marketing');
    expect(afterRename.body.roles).toEqual([
      expect.objectContaining({ groupId: id, displayName: 'Brand & Marketing', status: 'present' }),
    ]);
    const visible = await t.api('GET', '/api/connectors/scim-sandbox/roles?search=human');
    expect(visible.body.roles).toEqual([]);
    const all = await t.api(
      'GET',
      '/api/connectors/scim-sandbox/roles?search=human&includeGone=true',
    );
    expect(all.body.roles).toEqual([
      expect.objectContaining({ groupId: gone.id, status: 'gone', goneSince: expect.any(String) }),
    ]);
  });

  it('imports the directory groups of the Graph sandbox as "Import Directory Groups"', async () => {
    const started = await t.api('POST', '/api/connectors/graph-sandbox/imports', {});
    expect(started.body.type).toBe('Import Directory Groups');
    const job = await until('the import job', async () => {
      const answer = await t.api('GET', `/api/jobs/${started.body.jobId}`);
      return answer.body.status === 'running' ? undefined : answer.body;
    });
    expect(job.status).toBe('succeeded');
    const roles = await t.api('GET', '/api/connectors/graph-sandbox/roles?search=dynamic');
    expect(roles.body.roles).toEqual([
      expect.objectContaining({
        displayName: 'All Staff (dynamic)',
        writable: false,
        notWritableReason: expect.any(String),
      }),
    ]);
  });

  it('runs the compatibility run of the SCIM sandbox as a job, and refuses it for Graph', async () => {
    const started = await t.api('POST', '/api/connectors/scim-sandbox/compatibility-run');
    expect(started.status).toBe(202);
    const job = await until('the compatibility run', async () => {
      const answer = await t.api('GET', `/api/jobs/${started.body.jobId}`);
      return answer.body.status === 'running' ? undefined : answer.body;
    });
    expect(job).toMatchObject({ status: 'succeeded', result: { fits: true } });
    expect(job.result.points).toHaveLength(6);
    // The test account's password (compatibility-run.ts: Cp-<16 characters>9!) is redacted in the evidence.
    expect(JSON.stringify(job)).toContain('[redacted]');
    expect(JSON.stringify(job)).not.toMatch(/Cp-[A-Za-z0-9_-]{16}9!/);
    const refused = await t.api('POST', '/api/connectors/graph-sandbox/compatibility-run');
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('OPERATION_NOT_SUPPORTED');
  });
});
