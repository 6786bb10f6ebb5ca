import { afterEach, describe, expect, it } from 'vitest';
import type { RequestPlan } from '../../../src/domain/request-preview';
import type { RequestReport, StepReport } from '../../../src/domain/request-report';
import { jobInstanceId } from '../../../src/workflows/names';
import { benchApi } from '../../support/api-calls';
import { GRAPH, importCatalogue, SCIM, useServiceBench } from '../../support/service-bench';
import { expectNoSecrets } from '../../support/no-secrets';

/*
 * Issue 14, Preview: `POST /api/requests` with "mode": "preview" runs the request's own step
 * machines on reads and simulated writes. Judged by the sandboxes' own logs and state, the
 * journal, the account record and the secret store: a preview writes nothing; and its plan
 * is what the real request, sent right after, then does.
 */
const bench = useServiceBench();
const api = benchApi(bench);
afterEach(() => bench.sandboxes.graph.setLatency(0));

const PASSWORD = 'Pr3view!Passw0rd-91';
const accountOf = (connector: string, name: string) =>
  connector === GRAPH ? `${name}@contoso.example` : name;

/** Everything a preview must leave as it was. */
async function footprint(connector: string, accountId: string) {
  const { scim, graph } = bench.sandboxes;
  return {
    truth: connector === SCIM ? scim.truthLog().length : graph.truthLog().length,
    journal: (await bench.journal(connector, accountId)).length,
    record: await bench.runtime.services.accounts.get(connector, accountId),
    secrets: bench.secrets.names().sort(),
    instances: bench.runtime.driver.snapshot().length,
  };
}

/** The methods the target saw from `from` on (SCIM: every call; Graph: every Graph call). */
function methodsSince(connector: string, from: number): string[] {
  const { scim, graph } = bench.sandboxes;
  const requests = connector === SCIM ? scim.requests : graph.requests;
  return [...new Set(requests.slice(from).map((request) => request.method))];
}

/*
 * How a read was made (a group read by the members filter, a state confirmed after a
 * second read) depends on what the write left, which a preview cannot send: those notices
 * may differ. Every other notice is about the account and its groups, and must agree.
 */
const HOW_READ = /came without a member list|verified after \d+ reads|confirmed after/;

/** What a plan and a report must agree on, step by step. */
function course(steps: readonly StepReport[]) {
  return steps.map((step) => ({
    action: step.action,
    state: step.state,
    changes: step.changes,
    notices: step.notices.filter((notice) => !HOW_READ.test(notice)),
    error: step.error?.code,
  }));
}

/** Previews the request (asserting it wrote nothing), then runs it: the plan must be what it did. */
async function previewThenRun(
  connector: string,
  body: Record<string, unknown>,
): Promise<{ plan: RequestPlan; report: RequestReport }> {
  const accountId = (body.account as { accountId: string }).accountId;
  const before = await footprint(connector, accountId);
  const requestsBefore = (connector === SCIM ? bench.sandboxes.scim : bench.sandboxes.graph)
    .requests.length;
  const answer = await api('submitRequest', {}, { body: { ...body, connector, mode: 'preview' } });
  expect(answer.status, JSON.stringify(answer.jsonBody)).toBe(200);
  const plan = answer.jsonBody as RequestPlan;
  expect(plan.mode).toBe('preview');
  expect(await footprint(connector, accountId)).toEqual(before);
  expect(methodsSince(connector, requestsBefore)).toEqual(['GET']);

  const report = await bench.run({ ...body, connector });
  expect(course(plan.steps)).toEqual(course(report.steps));
  expect(plan.status).toBe(report.status);
  return { plan, report };
}

describe.each([SCIM, GRAPH])('a preview on %s', (connector) => {
  const accountId = accountOf(connector, 'preview.user');

  it('plans a create and the grant after it on an account that is not there yet', async () => {
    const { plan } = await previewThenRun(connector, {
      account: { accountId, displayName: 'Preview User' },
      password: PASSWORD,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales', 'Finance'] }],
    });
    expect(plan.steps.map((step) => step.changes.map((c) => c.groupName ?? c.change))).toEqual([
      ['account created'],
      ['Sales', 'Finance'],
    ]);
    expect(plan.notices.join('\n')).toContain('the password was checked and discarded');
  });

  it('plans an update', async () => {
    await previewThenRun(connector, {
      account: { accountId, displayName: 'Preview User Renamed' },
      actions: [{ type: 'update' }],
    });
  });

  it('plans a lock, and says so when the account is locked already', async () => {
    await previewThenRun(connector, { account: { accountId }, actions: [{ type: 'lock' }] });
    const { plan } = await previewThenRun(connector, {
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect(plan.steps[0]).toMatchObject({ changes: [], notices: ['account was already locked'] });
  });

  it('plans an unlock and a new password', async () => {
    await previewThenRun(connector, {
      account: { accountId },
      password: PASSWORD,
      actions: [{ type: 'unlock' }, { type: 'setPassword' }],
    });
  });

  it('plans a grant of a group in place (a notice, no change) and a revoke', async () => {
    const { plan } = await previewThenRun(connector, {
      account: { accountId },
      actions: [
        { type: 'grant', groups: ['Sales'] },
        { type: 'revoke', groups: ['Finance'] },
      ],
    });
    expect(plan.steps[0]!.notices).toEqual([
      expect.stringContaining('already as requested, nothing changed'),
    ]);
    expect(plan.steps[1]!.changes).toMatchObject([
      { change: 'member removed', groupName: 'Finance' },
    ]);
  });

  it('meets CATALOGUE_EMPTY with no catalogue, then plans the reconciliation once it is imported', async () => {
    const empty = await previewThenRun(connector, {
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Support'] }, { type: 'lock' }],
    });
    expect(empty.plan.steps.map((step) => [step.state, step.error?.code])).toEqual([
      ['failed', 'CATALOGUE_EMPTY'],
      ['skipped', undefined],
    ]);

    await importCatalogue(bench, connector);
    const { plan } = await previewThenRun(connector, {
      account: { accountId },
      actions: [{ type: 'setMemberships', groups: ['Support'] }],
    });
    expect(plan.steps[0]!.changes.map((c) => [c.change, c.groupName])).toEqual([
      ['member removed', 'Sales'],
      ['member added', 'Support'],
    ]);
  });

  it('meets GROUP_NOT_FOUND for a group that is nowhere, and ACCOUNT_NOT_FOUND for an absent account', async () => {
    const unknown = await previewThenRun(connector, {
      account: { accountId },
      actions: [{ type: 'grant', groups: ['No Such Group 404'] }],
    });
    expect(unknown.plan.steps[0]!.error?.code).toBe('GROUP_NOT_FOUND');
    const absent = await previewThenRun(connector, {
      account: { accountId: accountOf(connector, 'nobody.here') },
      actions: [{ type: 'lock' }],
    });
    expect(absent.plan.steps[0]!.error?.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('plans a delete, and notices an account already gone', async () => {
    await previewThenRun(connector, { account: { accountId }, actions: [{ type: 'delete' }] });
    const { plan } = await previewThenRun(connector, {
      account: { accountId },
      actions: [{ type: 'delete' }],
    });
    // On the evidence a delete of an unlinked account asks for (revision 5): SCIM reads every
    // user, Graph's delete by name is previewed on a read of that name.
    expect(plan.steps[0]!.notices).toHaveLength(1);
    expect(plan.steps[0]!.notices[0]).toMatch(
      new RegExp(
        `^account "${accountId}" (is absent \\(.+\\): nothing to delete|was already gone)$`,
      ),
    );
  });
});

describe('the preview API', () => {
  it('says plainly that reads may lag on Graph, and not on a target whose reads show writes at once', async () => {
    const plans = await Promise.all(
      [GRAPH, SCIM].map(async (connector) => {
        const answer = await api(
          'submitRequest',
          {},
          {
            body: {
              mode: 'preview',
              connector,
              account: { accountId: accountOf(connector, 'lag.notice') },
              actions: [{ type: 'create' }],
            },
          },
        );
        return (answer.jsonBody as RequestPlan).notices.join('\n');
      }),
    );
    expect(plans[0]).toContain('may lag its writes by seconds');
    expect(plans[0]).toContain('this plan is what the reads show now');
    expect(plans[1]).not.toContain('may lag');
  });

  it('hands the plan to a job (202) when the reads are slow; the job writes nothing either', async () => {
    const accountId = accountOf(GRAPH, 'slow.reads');
    const before = await footprint(GRAPH, accountId);
    bench.sandboxes.graph.setLatency(300);
    const slow = benchApi(bench, { previewWaitMs: 100 });
    const body = {
      mode: 'preview',
      connector: GRAPH,
      account: { accountId },
      password: PASSWORD,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Support'] }],
    };

    const answer = await slow('submitRequest', {}, { body });

    expect(answer.status).toBe(202);
    const { jobId, statusUrl } = answer.jsonBody as { jobId: string; statusUrl: string };
    expect(statusUrl).toMatch(new RegExp(`/api/jobs/${jobId}$`));
    await bench.runtime.driver.waitFor(jobInstanceId(jobId), 20_000);
    const job = await slow('getJob', { id: jobId });
    expect(job.jsonBody).toMatchObject({ type: 'Request preview', status: 'succeeded' });
    const plan = (job.jsonBody as { result: RequestPlan }).result;
    expect(plan.steps.map((step) => [step.action, step.state])).toEqual([
      ['create', 'succeeded'],
      ['grant', 'succeeded'],
    ]);
    // The job's own state holds no password, and nothing reached the target or the stores.
    expectNoSecrets(bench.runtime.driver.snapshot(), { password: PASSWORD }, 'the orchestrations');
    const after = await footprint(GRAPH, accountId);
    expect({ ...after, instances: before.instances }).toEqual(before);
    expect(after.instances).toBe(before.instances + 1);
  });

  it('checks a preview as it checks a request: a bad password or body is 400, nothing read', async () => {
    const requestsBefore = bench.sandboxes.scim.requests.length;
    const answer = await api(
      'submitRequest',
      {},
      {
        body: {
          mode: 'preview',
          connector: SCIM,
          account: { accountId: 'bad.preview' },
          password: '',
          actions: [{ type: 'lock' }],
        },
      },
    );
    expect(answer.status).toBe(400);
    expect((answer.jsonBody as { error: { problems: { path: string }[] } }).error.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'password' })]),
    );
    expect(bench.sandboxes.scim.requests.length).toBe(requestsBefore);
    const unknown = await api(
      'submitRequest',
      {},
      {
        body: {
          mode: 'preview',
          connector: 'nowhere',
          account: { accountId: 'x' },
          actions: [{ type: 'lock' }],
        },
      },
    );
    expect(unknown.status).toBe(404);
  });
});
