import { afterEach, describe, expect, it } from 'vitest';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';
import type { RequestReport } from '../../../src/domain/request-report';
import { createActivityHandlers } from '../../../src/workflows/activities';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  createCalls,
  requestActivityCalls,
  GRAPH,
  useServiceBench,
} from '../../support/service-bench';
import { expectNoSecrets } from '../../support/no-secrets';
import { startKeyVaultSandbox, type KeyVaultSandbox } from '../../../src/sandbox/keyvault/index.js';
import { KeyVaultSecretStore } from '../../../src/secrets/key-vault-secret-store';
import type { SecretStore } from '../../../src/secrets/secret-store';
import { sandboxClientOptions, sandboxCredential } from '../../support/keyvault-credential';

/**
 * DESIGN invariant 5: a password in a request travels as a transient secret named
 * request-password-*, never in a history, the journal or a report, and is deleted after use.
 */
const bench = useServiceBench();
afterEach(() => {
  // Whatever a request did with its password, none is left behind when it ends.
  expect(transientSecrets()).toEqual([]);
});

const upn = (name: string) => `${name}@contoso.example`;
const transientSecrets = () =>
  bench.secrets.names().filter((name) => name.startsWith('request-password-'));
const callsOf = (requestId: string, name: string) => requestActivityCalls(bench, requestId, name);

/** The secret name the request carried instead of its password. */
async function secretOf(requestId: string): Promise<string> {
  const state = await bench.runtime.driver.getStatus(requestInstanceId(requestId));
  const name = (state?.input as ProvisioningRequest | undefined)?.passwordSecret;
  expect(name).toMatch(/^request-password-/);
  return name!;
}

function graphUser(accountId: string) {
  const id = bench.sandboxes.graph.userIdByUpn(accountId);
  return id === undefined ? undefined : bench.sandboxes.graph.getUser(id);
}
const committed = (accountId: string) =>
  bench.sandboxes.graph
    .truthLog()
    .filter((event) => event.accountId === accountId)
    .map((event) => event.change);

async function expectPasswordNowhere(password: string, report: RequestReport, accountId: string) {
  expectNoSecrets(bench.runtime.driver.snapshot(), { password }, 'the orchestrations');
  expectNoSecrets(report, { password }, 'the report');
  expectNoSecrets(await bench.journal(GRAPH, accountId), { password }, 'the journal');
}

describe('the transient password secret (DESIGN invariant 5)', () => {
  it('is set as the first password and deleted by the create step when no later step uses it', async () => {
    const accountId = upn('pw.create');
    const password = 'Cr3ate-Only-Pa55!';

    const report = await bench.run({
      requestId: 'pw.create-1',
      connector: GRAPH,
      account: { accountId, displayName: 'Pw Create' },
      password,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });

    expect(report.status).toBe('succeeded');
    expect(graphUser(accountId)?.passwordProfile).toMatchObject({ password });
    const secret = await secretOf('pw.create-1');
    expect(createCalls(bench, 'pw.create-1')[0]?.input).toMatchObject({
      passwordSecret: secret,
      discardAfterUse: true,
    });
    expect(callsOf('pw.create-1', ACTIVITIES.discardSecret)).toEqual([]);
    expect(bench.secrets.names()).not.toContain(secret);
    await expectPasswordNowhere(password, report, accountId);
  });

  it('is kept by create for a later setPassword, which sets it and deletes it', async () => {
    const accountId = upn('pw.later');
    const password = 'S3t-Later-Pa55!';

    const report = await bench.run({
      requestId: 'pw.later-1',
      connector: GRAPH,
      account: { accountId, displayName: 'Pw Later' },
      password,
      actions: [{ type: 'create' }, { type: 'setPassword' }, { type: 'lock' }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(committed(accountId)).toEqual(['account created', 'password set', 'account locked']);
    expect(graphUser(accountId)?.passwordProfile).toMatchObject({ password });
    expect(createCalls(bench, 'pw.later-1')[0]?.input).toMatchObject({
      discardAfterUse: false,
    });
    expect(callsOf('pw.later-1', ACTIVITIES.setPassword)[0]?.input).toMatchObject({
      passwordSecret: await secretOf('pw.later-1'),
      discardAfterUse: true,
    });
    expect(callsOf('pw.later-1', ACTIVITIES.discardSecret)).toEqual([]);
    await expectPasswordNowhere(password, report, accountId);
  });

  it('is discarded at the end when the request fails before using it', async () => {
    const accountId = upn('pw.unused');
    bench.sandboxes.graph.addUser({ userPrincipalName: accountId, displayName: 'Pw Unused' });
    const password = 'Nev3r-Used-Pa55!';

    const report = await bench.run({
      requestId: 'pw.unused-1',
      connector: GRAPH,
      account: { accountId },
      password,
      actions: [{ type: 'grant', groups: ['No Such Group'] }, { type: 'setPassword' }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(committed(accountId)).toEqual([]);
    expect(graphUser(accountId)?.passwordProfile).toBeUndefined();
    expect(callsOf('pw.unused-1', ACTIVITIES.setPassword)).toEqual([]);
    expect(callsOf('pw.unused-1', ACTIVITIES.discardSecret).map((call) => call.input)).toEqual([
      { name: await secretOf('pw.unused-1') },
    ]);
    await expectPasswordNowhere(password, report, accountId);
  });

  it('is discarded when the step using it fails: Graph refuses a weak password', async () => {
    const accountId = upn('pw.weak');
    // One character class only: Entra ID's complexity rule wants three of four.
    const password = 'onlylowercaseletters';

    const report = await bench.run({
      requestId: 'pw.weak-1',
      connector: GRAPH,
      account: { accountId, displayName: 'Pw Weak' },
      password,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });

    expect(report.steps.map((step) => step.state)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('GRAPH_REQUEST_REJECTED');
    expect(report.steps[0]?.error?.message).toContain('password complexity');
    expect(bench.sandboxes.graph.userIdByUpn(accountId)).toBeUndefined();
    expect(callsOf('pw.weak-1', ACTIVITIES.discardSecret).map((call) => call.input)).toEqual([
      { name: await secretOf('pw.weak-1') },
    ]);
    await expectPasswordNowhere(password, report, accountId);
  });
});

describe('an activity Durable runs again after it discarded the password (DESIGN invariant 4)', () => {
  it('create and setPassword succeed the second time, without the secret and without a second write', async () => {
    const handlers = createActivityHandlers(() => Promise.resolve(bench.runtime.services));
    const password = 'Twice-Run-Passw0rd!';
    await bench.secrets.set('request-password-twice', password);
    const create = {
      connector: GRAPH,
      profile: { accountId: upn('pw.twice') },
      passwordSecret: 'request-password-twice',
      discardAfterUse: true,
      intentKey: 'twice-create',
    };
    const first = (await handlers.createAccount(create as never)) as {
      ok: boolean;
      value?: unknown;
    };
    expect(first).toMatchObject({ ok: true, value: { outcome: 'created' } });
    expect(transientSecrets()).toEqual([]);
    // The same activity again (its first answer lost on the way to the orchestration).
    const second = (await handlers.createAccount(create as never)) as {
      ok: boolean;
      value?: unknown;
    };
    expect(second).toMatchObject({ ok: true, value: { outcome: 'adopted', maybeOurs: true } });
    expect(graphUser(upn('pw.twice'))?.passwordProfile).toMatchObject({ password });

    await bench.secrets.set('request-password-twice-2', 'Second-Passw0rd!');
    const account = (second as { value: { account: unknown } }).value.account;
    const set = {
      connector: GRAPH,
      account,
      passwordSecret: 'request-password-twice-2',
      discardAfterUse: true,
      intentKey: 'twice-set',
    };
    expect(await handlers.setPassword(set as never)).toEqual({ ok: true, value: null });
    expect(await handlers.setPassword(set as never)).toEqual({ ok: true, value: null });
    expect(committed(upn('pw.twice')).filter((change) => change === 'password set')).toHaveLength(
      1,
    );
    expect(graphUser(upn('pw.twice'))?.passwordProfile).toMatchObject({
      password: 'Second-Passw0rd!',
    });
  });
});

describe('a secret store that refuses to delete the used password (Key Vault sandbox)', () => {
  const app = {
    clientId: 'provisioning-app',
    secret: 'provisioning-app-secret-1',
    permissions: ['get' as const, 'set' as const, 'delete' as const],
  };
  /** Runs `body` with the request's password in a Key Vault sandbox instead of the local store. */
  async function inVault<T>(run: (vault: KeyVaultSandbox) => Promise<T>): Promise<T> {
    const vault = await startKeyVaultSandbox({ clients: [app] });
    const services = bench.runtime.services as { secrets: SecretStore };
    const local = services.secrets;
    services.secrets = new KeyVaultSecretStore({
      vaultUrl: vault.vaultUrl,
      credential: sandboxCredential(vault, app),
      cacheMs: 0,
      clientOptions: sandboxClientOptions(vault),
    });
    try {
      return await run(vault);
    } finally {
      services.secrets = local;
      await vault.close();
    }
  }
  const vaultSecretOf = async (requestId: string) => {
    const state = await bench.runtime.driver.getStatus(requestInstanceId(requestId));
    return (state?.input as ProvisioningRequest).passwordSecret!;
  };

  it('a delete answered 503 keeps the create it was used for; the request deletes the secret at its end', async () => {
    await inVault(async (vault) => {
      const accountId = upn('pw.vault-503');
      // The vault fails the next delete only: the create's, once the account is made.
      vault.injectFault({ status: 503, method: 'DELETE' });
      const report = await bench.run({
        requestId: 'pw.vault-503-1',
        connector: GRAPH,
        account: { accountId, displayName: 'Pw Vault' },
        password: 'Vault-503-Pa55word!',
        actions: [{ type: 'create' }],
      });

      expect(report.status).toBe('succeeded');
      expect(committed(accountId)).toEqual(['account created']);
      expect(report.steps[0]?.changes).toEqual([{ change: 'account created' }]);
      expect(report.steps[0]?.notices.join(' ')).toContain(
        "the password's secret could not be deleted",
      );
      // Not blamed on the target: its answer was never lost.
      expect(report.steps[0]?.notices.join(' ')).not.toMatch(/answer was lost/);
      expect(callsOf('pw.vault-503-1', ACTIVITIES.discardSecret)).toHaveLength(1);
      const secret = await vaultSecretOf('pw.vault-503-1');
      expect(vault.currentValue(secret)).toBeUndefined();
      expect(vault.isDeleted(secret)).toBe(true);
      expect(report.notices ?? []).toEqual([]);
    });
  });

  it('a vault that never lets the service delete: the report names the secret still holding the password', async () => {
    await inVault(async (vault) => {
      const accountId = upn('pw.vault-kept');
      const password = 'Vault-Kept-Pa55word!';
      vault.setClientPermissions(app.clientId, ['get', 'set']);
      const report = await bench.run({
        requestId: 'pw.vault-kept-1',
        connector: GRAPH,
        account: { accountId, displayName: 'Pw Kept' },
        password,
        actions: [{ type: 'create' }],
      });

      expect(report.status).toBe('succeeded');
      expect(committed(accountId)).toEqual(['account created']);
      expect(graphUser(accountId)?.passwordProfile).toMatchObject({ password });
      const secret = await vaultSecretOf('pw.vault-kept-1');
      expect(vault.currentValue(secret)).toBe(password);
      expect(callsOf('pw.vault-kept-1', ACTIVITIES.discardSecret)).toHaveLength(1);
      expect(report.notices?.join(' ')).toContain(`"${secret}" could not be deleted`);
      expectNoSecrets(report, { password }, 'the report');
    });
  });
});
