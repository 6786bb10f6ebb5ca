import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestHost, type TestHost } from './local-host-harness';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const ACCOUNTS = {
  'scim-sandbox': 'jane.doe',
  'graph-sandbox': 'jane.doe@contoso.example',
} as const;
type Sandbox = keyof typeof ACCOUNTS;
const CONNECTORS = Object.keys(ACCOUNTS) as Sandbox[];

async function submit(body: Record<string, unknown>) {
  const answer = await t.api('POST', '/api/requests', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.requestId as string;
}

async function journal(connector: string, accountId: string) {
  const answer = await t.api(
    'GET',
    `/api/journal?connector=${connector}&accountId=${encodeURIComponent(accountId)}`,
  );
  expect(answer.status).toBe(200);
  return answer.body.entries as {
    requestId: string;
    change: string;
    groupName?: string;
    step: number;
  }[];
}

/** Group ids on the target, by name, found through the live group search. */
async function groupIds(connector: string, names: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) {
    const answer = await t.api(
      'GET',
      `/api/connectors/${connector}/groups?search=${encodeURIComponent(name)}`,
    );
    const group = (answer.body.groups as { id: string; displayName: string }[]).find(
      (g) => g.displayName === name,
    );
    ids[name] = group!.id;
  }
  return ids;
}

/** The group ids of membership writes the sandbox saw, in order. */
function membershipWrites(connector: Sandbox): string[] {
  const sandboxes = t.host.sandboxes!;
  if (connector === 'scim-sandbox') {
    return sandboxes.scim.requests
      .filter((r) => r.method === 'PATCH' && r.path.includes('/Groups/'))
      .map((r) => r.path.split('/Groups/')[1]!);
  }
  return sandboxes.graph.requests
    .filter(
      (r) =>
        (r.method === 'POST' || r.method === 'DELETE') && /\/groups\/[^/]+\/members/.test(r.path),
    )
    .map((r) => /\/groups\/([^/]+)\/members/.exec(r.path)![1]!);
}

describe.each(CONNECTORS)('provisioning requests on %s', (connector) => {
  const accountId = ACCOUNTS[connector];

  it('creates an account with three groups and journals exactly the effective changes', async () => {
    const requestId = await submit({
      requestId: `create-${connector}`,
      connector,
      account: {
        accountId,
        displayName: 'Jane Doe',
        givenName: 'Jane',
        familyName: 'Doe',
        email: 'jane.doe@contoso.example',
      },
      password: 'Initial-Passw0rd!',
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales', 'Finance'] }],
    });
    const report = await t.finished(requestId);
    expect(report).toMatchObject({ status: 'succeeded', connector, accountId });
    expect(report.steps.map((s: { state: string }) => s.state)).toEqual(['succeeded', 'succeeded']);
    expect(report.steps[1].changes.map((c: { groupName: string }) => c.groupName).sort()).toEqual([
      'Engineering',
      'Finance',
      'Sales',
    ]);

    const again = await submit({
      connector,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales', 'Support'] }],
    });
    const second = await t.finished(again);
    expect(second.status).toBe('succeeded');
    expect(second.steps[0].changes).toEqual([
      expect.objectContaining({ change: 'member added', groupName: 'Support' }),
    ]);

    const entries = await journal(connector, accountId);
    expect(
      entries
        .filter((e) => e.requestId === requestId)
        .map((e) => `${e.change}:${e.groupName ?? ''}`)
        .sort(),
    ).toEqual([
      'account created:',
      'member added:Engineering',
      'member added:Finance',
      'member added:Sales',
    ]);
    expect(entries.filter((e) => e.requestId === again).map((e) => e.groupName)).toEqual([
      'Support',
    ]);
    await t.host.driver.verifyReplay(requestInstanceId(requestId));
    await t.host.driver.verifyReplay(requestInstanceId(again));
  });

  it('runs a requestId sent twice once', async () => {
    const body = {
      requestId: `lock-${connector}`,
      connector,
      account: { accountId },
      actions: [{ type: 'lock' }],
    };
    const first = await t.api('POST', '/api/requests', body);
    const second = await t.api('POST', '/api/requests', body);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ requestId: body.requestId, duplicate: true });
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const report = await t.finished(body.requestId);
    expect(report.steps[0]).toMatchObject({
      state: 'succeeded',
      changes: [{ change: 'account locked' }],
    });
    const locks = (await journal(connector, accountId)).filter(
      (e) => e.change === 'account locked',
    );
    expect(locks).toHaveLength(1);

    const changed = await t.api('POST', '/api/requests', {
      ...body,
      actions: [{ type: 'unlock' }],
    });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('REQUEST_CONFLICT');
  });

  it('never interleaves the membership writes of two requests for the same account', async () => {
    const ids = await groupIds(connector, ['Marketing', 'Human Resources', 'Engineering', 'Sales']);
    const before = membershipWrites(connector).length;
    const [a, b] = await Promise.all([
      submit({
        connector,
        account: { accountId },
        actions: [{ type: 'grant', groups: ['Marketing', 'Human Resources'] }],
      }),
      submit({
        connector,
        account: { accountId },
        actions: [{ type: 'revoke', groups: ['Engineering', 'Sales'] }],
      }),
    ]);
    const [ra, rb] = await Promise.all([t.finished(a), t.finished(b)]);
    expect([ra.status, rb.status]).toEqual(['succeeded', 'succeeded']);
    const writes = membershipWrites(connector)
      .slice(before)
      .map((id) => (id === ids.Marketing || id === ids['Human Resources'] ? 'a' : 'b'));
    // A SCIM revoke is sent in both member-value forms, the account ID then the SCIM id: two
    // PATCHes per group; never one of the other request's in between.
    expect(writes.join('')).toMatch(/^(aab{2,4}|b{2,4}aa)$/);
  });
});

describe('membership verification on the Graph sandbox', () => {
  const accountId = 'replica.test@contoso.example';
  beforeAll(async () => {
    const created = await submit({
      connector: 'graph-sandbox',
      account: { accountId, displayName: 'Replica Test' },
      actions: [{ type: 'create' }],
    });
    expect((await t.finished(created)).status).toBe('succeeded');
    // The sandbox's replication delay applies to reads of older writes too: let them settle.
    t.clock.advanceBy(60_000);
  });

  it('succeeds after durable-timer re-reads when changes show 10 s late', async () => {
    t.host.sandboxes!.graph.setReplicationDelay(10_000);
    const started = t.clock.now();
    const id = await submit({
      connector: 'graph-sandbox',
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Engineering', 'Sales'] }],
    });
    const report = await t.finished(id);
    t.host.sandboxes!.graph.setReplicationDelay(0);
    expect(report.status).toBe('succeeded');
    expect(report.steps[0].notices.join()).toMatch(/verified after \d+ reads/);
    const elapsed = t.clock.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(10_000);
    expect(elapsed).toBeLessThan(30_000);
    const timers = t.host.driver.history(requestInstanceId(id)).filter((e) => e.EventType === 11);
    expect(timers.length).toBeGreaterThanOrEqual(3);
    await t.host.driver.verifyReplay(requestInstanceId(id));
  });

  it('fails the step after 30 s naming the missing groups, and skips the later steps', async () => {
    t.host.sandboxes!.graph.setReplicationDelay(40_000);
    const started = t.clock.now();
    const id = await submit({
      connector: 'graph-sandbox',
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Finance', 'Support'] }, { type: 'lock' }],
    });
    const report = await t.finished(id);
    t.host.sandboxes!.graph.setReplicationDelay(0);
    expect(report.status).toBe('failed');
    expect(report.steps.map((s: { state: string }) => s.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0].error.code).toBe('MEMBERSHIP_MISMATCH');
    expect(
      report.steps[0].error.details.missing.map((g: { name: string }) => g.name).sort(),
    ).toEqual(['Finance', 'Support']);
    expect(report.steps[0].error.message).toContain('after 30 s');
    const elapsed = t.clock.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(30_000);
    expect(elapsed).toBeLessThan(40_000);
    await t.host.driver.verifyReplay(requestInstanceId(id));
  });
});
