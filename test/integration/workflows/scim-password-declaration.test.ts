import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestPlan } from '../../../src/domain/request-preview';
import type { RequestReport } from '../../../src/domain/request-report';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { SCIM, startServiceBench, type ServiceBench } from '../../support/service-bench';
import { expectNoSecrets } from '../../support/no-secrets';
import { benchApi } from '../../support/api-calls';

/**
 * DESIGN invariant 11 on SCIM servers that declare `changePassword: false` and answer a
 * password PATCH 204 while ignoring it (scim-interop.md, applications' built-in services):
 * a setPassword is never reported done on such an answer. Each bench starts with the quirk
 * set, as the connector reads the declaration once.
 */
function useScimBench(quirks: ScimQuirks): () => ServiceBench {
  let bench: ServiceBench;
  beforeAll(async () => {
    bench = await startServiceBench();
    bench.sandboxes.scim.setQuirks(quirks);
  });
  afterAll(() => bench.close());
  return () => bench;
}

/** `POST /api/requests` with "mode": "preview": the plan, and the methods the server saw meanwhile. */
async function preview(bench: ServiceBench, body: Record<string, unknown>) {
  const from = bench.sandboxes.scim.requests.length;
  const answer = await benchApi(bench)(
    'submitRequest',
    {},
    { body: { ...body, connector: SCIM, mode: 'preview' } },
  );
  expect(answer.status, JSON.stringify(answer.jsonBody)).toBe(200);
  const methods = new Set(bench.sandboxes.scim.requests.slice(from).map((r) => r.method));
  return { plan: answer.jsonBody as RequestPlan, methods: [...methods] };
}

const passwordPatches = (bench: ServiceBench, userId: string) =>
  bench.sandboxes.scim.requests.filter(
    (r) => r.method === 'PATCH' && r.path.endsWith(`/Users/${userId}`),
  );

async function expectPasswordNowhere(
  bench: ServiceBench,
  password: string,
  report: RequestReport,
  accountId: string,
) {
  expectNoSecrets(bench.runtime.driver.snapshot(), { password }, 'the orchestrations');
  expectNoSecrets(report, { password }, 'the report');
  expectNoSecrets(await bench.journal(SCIM, accountId), { password }, 'the journal');
}

describe('setPassword on a SCIM server that declares changePassword: false', () => {
  const bench = useScimBench({ passwordPatchIgnored: true });

  it('is refused before a PATCH is sent, fails with OPERATION_NOT_SUPPORTED and journals nothing', async () => {
    const b = bench();
    const accountId = 'pw.declared-false';
    const [user] = b.sandboxes.scim.seedUsers([{ userName: accountId, displayName: 'Pw False' }]);
    const password = 'Compr0mised-Reset-1!';

    const report = await b.run({
      requestId: 'pw.declared-false-1',
      connector: SCIM,
      account: { accountId },
      password,
      actions: [{ type: 'setPassword' }],
    });

    expect(report.status).toBe('failed');
    const step = report.steps[0]!;
    expect(step.state).toBe('failed');
    expect(step.changes).toEqual([]);
    expect(step.error?.code).toBe('OPERATION_NOT_SUPPORTED');
    expect(step.error?.message).toContain('connector "scim-sandbox"');
    expect(step.error?.message).toContain(`account "${accountId}"`);
    expect(step.error?.message).toContain('declares changePassword: false');
    // The target's truth: no PATCH reached it, and it holds no password.
    expect(passwordPatches(b, user!.id)).toEqual([]);
    expect(b.sandboxes.scim.hasPassword(user!.id)).toBe(false);
    expect((await b.journal(SCIM, accountId)).map((e) => e.change)).not.toContain('password set');
    await expectPasswordNowhere(b, password, report, accountId);
  });

  it('is previewed as the request would end: refused, naming the declaration, nothing sent', async () => {
    const b = bench();
    const accountId = 'pw.preview-declared-false';
    b.sandboxes.scim.seedUsers([{ userName: accountId, displayName: 'Pw Preview' }]);
    const password = 'Pr3view-Decl4red-False!';
    const body = { account: { accountId }, password, actions: [{ type: 'setPassword' }] };

    const { plan, methods } = await preview(b, body);
    expect(methods.filter((method) => method !== 'GET')).toEqual([]);
    expect(plan.status).toBe('failed');
    expect(plan.steps[0]?.state).toBe('failed');
    expect(plan.steps[0]?.changes).toEqual([]);
    expect(plan.steps[0]?.error?.code).toBe('OPERATION_NOT_SUPPORTED');
    expect(plan.steps[0]?.error?.message).toContain('declares changePassword: false');
    expect(plan.steps[0]?.error?.message).toContain(`account "${accountId}"`);
    expectNoSecrets(plan, { password }, 'the plan');

    // The request itself ends as planned.
    const report = await b.run({
      ...body,
      requestId: 'pw.preview-declared-false-1',
      connector: SCIM,
    });
    expect(report.status).toBe(plan.status);
    expect(report.steps[0]?.error?.code).toBe(plan.steps[0]?.error?.code);
  });

  it('a create carrying a password succeeds with a notice that the password may have been ignored', async () => {
    const b = bench();
    const accountId = 'pw.create-declared-false';
    const password = 'Cr3ate-Ign0red-Pa55!';

    const report = await b.run({
      requestId: 'pw.create-declared-false-1',
      connector: SCIM,
      account: { accountId, displayName: 'Pw Create False' },
      password,
      actions: [{ type: 'create' }],
    });

    expect(report.steps[0]?.state).toBe('succeeded');
    expect(b.sandboxes.scim.getUser(accountId)).toBeDefined();
    // The truth the notice warns of: the server kept no password.
    expect(b.sandboxes.scim.hasPassword(accountId)).toBe(false);
    const notice = report.steps[0]?.notices.find((n) => n.includes('may have been ignored'));
    expect(notice).toContain(`account "${accountId}"`);
    expect(notice).toContain('declares changePassword: false');
    // The declaration was read once for the whole connector, before either password write.
    const reads = b.sandboxes.scim.requests.filter((r) =>
      r.path.endsWith('/ServiceProviderConfig'),
    );
    expect(reads).toHaveLength(1);
    await expectPasswordNowhere(b, password, report, accountId);
  });
});

describe('setPassword on a SCIM server that declares changePassword: true', () => {
  const bench = useScimBench({});

  it('sets the password, journals it and says the verdict rests on the answer', async () => {
    const b = bench();
    const accountId = 'pw.declared-true';
    const [user] = b.sandboxes.scim.seedUsers([{ userName: accountId, displayName: 'Pw True' }]);
    const password = 'Declared-Tru3-Pa55!';

    const report = await b.run({
      requestId: 'pw.declared-true-1',
      connector: SCIM,
      account: { accountId },
      password,
      actions: [{ type: 'setPassword' }],
    });

    expect(report.steps[0]?.state).toBe('succeeded');
    expect(b.sandboxes.scim.hasPassword(user!.id)).toBe(true);
    expect(passwordPatches(b, user!.id)).toHaveLength(1);
    expect(
      b.sandboxes.scim
        .truthLog()
        .filter((e) => e.accountId === accountId)
        .map((e) => e.change),
    ).toContain('password set');
    expect((await b.journal(SCIM, accountId)).map((e) => e.change)).toEqual(['password set']);
    expect(report.steps[0]?.notices.join(' ')).toContain('rests on its answer alone');
    await expectPasswordNowhere(b, password, report, accountId);
  });

  it('is previewed as a password set, nothing sent', async () => {
    const b = bench();
    const accountId = 'pw.preview-declared-true';
    b.sandboxes.scim.seedUsers([{ userName: accountId, displayName: 'Pw Preview True' }]);
    const { plan, methods } = await preview(b, {
      account: { accountId },
      password: 'Pr3view-Decl4red-True!',
      actions: [{ type: 'setPassword' }],
    });
    expect(methods.filter((method) => method !== 'GET')).toEqual([]);
    expect(plan.status).toBe('succeeded');
    expect(plan.steps[0]?.changes).toEqual([{ change: 'password set' }]);
  });
});
