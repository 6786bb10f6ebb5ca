import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphConnector, type GraphConnector } from '../../../src/connectors/graph';
import type { GraphSandboxClient } from '../../../src/sandbox/graph';
import { startKeyVaultSandbox, type KeyVaultSandbox } from '../../../src/sandbox/keyvault';
import { KeyVaultSecretStore, LocalSecretStore, type SecretStore } from '../../../src/secrets';
import { sandboxClientOptions, sandboxCredential } from '../../support/keyvault-credential';
import { ADMIN, failureOf, SECRET_NAME, startHarness, type Harness } from './graph-harness';
import { expectNoSecrets } from '../../support/no-secrets';

const DAY = 86_400_000;
/**
 * An app whose secret Entra ID lets lapse during the run (60 days into the sandbox's virtual
 * clock, which starts on 2026-01-05), while the service was told nothing.
 */
const LAPSED: GraphSandboxClient = {
  clientId: '33333333-3333-3333-3333-333333333333',
  secret: 'lapsed-app-secret-0b41',
  roles: ['User.ReadWrite.All'],
  secretExpiresAt: Date.parse('2026-03-06T09:00:00Z'),
};

let harness: Harness;
let vault: KeyVaultSandbox;
const connectors: GraphConnector[] = [];

beforeAll(async () => {
  harness = await startHarness({ clients: [ADMIN, LAPSED] });
  vault = await startKeyVaultSandbox();
});
afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await harness.close();
  await vault.close();
});

/** The client secret in the Key Vault sandbox, read through the real SecretClient. */
function keyVaultStore(): SecretStore {
  return new KeyVaultSecretStore({
    vaultUrl: vault.vaultUrl,
    credential: sandboxCredential(vault),
    cacheMs: 0,
    clientOptions: sandboxClientOptions(vault),
  });
}

function connector(secrets: SecretStore, overrides: Parameters<Harness['settings']>[0] = {}) {
  const built = createGraphConnector(harness.settings(overrides), {
    secrets,
    ca: harness.sandbox.ca,
    sleep: harness.clock.sleep,
    now: harness.clock.now,
  });
  connectors.push(built);
  return built;
}

describe("the Graph client secret's expiry (connector B)", () => {
  it("reports the days left from the Key Vault secret's expiresOn, with a finding under 30 days", async () => {
    vault.setSecret(SECRET_NAME, ADMIN.secret, {
      expiresOn: new Date(harness.clock.now() + 10.5 * DAY),
    });
    const status = await connector(keyVaultStore()).checkStatus();
    expect(status).toMatchObject({
      ok: true,
      credential: { daysLeft: 10, expired: false, source: 'secret store' },
    });
    expect(status.findings.find((f) => f.name === 'Client secret')).toMatchObject({
      outcome: 'ok',
      detail: expect.stringMatching(/in 10 days, as its secret store says: rotate it soon$/),
    });
  });

  it('fails fast once it has expired: its own code naming the connector, no token asked for', async () => {
    vault.setSecret(SECRET_NAME, ADMIN.secret, { expiresOn: new Date(harness.clock.now() - DAY) });
    const graph = connector(keyVaultStore());
    const tokensBefore = harness.sandbox.stats.tokenRequests;
    const graphBefore = harness.sandbox.stats.graphRequests;
    const status = await graph.checkStatus();
    expect(status).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_CLIENT_SECRET_EXPIRED' },
      credential: { expired: true },
      summary: expect.stringContaining('connector "entra-test": its client secret'),
    });
    const call = await failureOf(graph.findAccount('jane.doe'));
    expect(call).toMatchObject({ code: 'GRAPH_CLIENT_SECRET_EXPIRED', object: 'entra-test' });
    expect(harness.sandbox.stats.tokenRequests).toBe(tokensBefore);
    expect(harness.sandbox.stats.graphRequests).toBe(graphBefore);
    expectNoSecrets(JSON.stringify(status) + call.message, { 'client secret': ADMIN.secret });
  });

  it("takes the connector's setting where the store keeps no expiry, and the earlier of both", async () => {
    const local = new LocalSecretStore({ [SECRET_NAME]: ADMIN.secret });
    const in5 = new Date(harness.clock.now() + 5.5 * DAY).toISOString();
    expect(
      (await connector(local, { clientSecretExpiresOn: in5 }).checkStatus()).credential,
    ).toMatchObject({ source: 'setting', daysLeft: 5 });
    await local.expireOn(SECRET_NAME, new Date(harness.clock.now() + 2.5 * DAY));
    expect(
      (await connector(local, { clientSecretExpiresOn: in5 }).checkStatus()).credential,
    ).toMatchObject({ source: 'secret store', daysLeft: 2 });
  });

  it('gives the same code when Entra ID says the secret expired (AADSTS7000222) and nobody told the service', async () => {
    const lapsing = connector(new LocalSecretStore({ [SECRET_NAME]: LAPSED.secret }), {
      client: LAPSED,
    });
    // Good until the day it lapses on the sandbox's clock...
    expect(await lapsing.checkStatus()).toMatchObject({ ok: true });
    await harness.clock.sleep(LAPSED.secretExpiresAt! + DAY - harness.clock.now());
    const tokensBefore = harness.sandbox.stats.tokenRequests;
    const status = await connector(new LocalSecretStore({ [SECRET_NAME]: LAPSED.secret }), {
      client: LAPSED,
    }).checkStatus();
    expect(status).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_CLIENT_SECRET_EXPIRED' },
      summary: expect.stringContaining('AADSTS7000222'),
    });
    expect(status.credential).toBeUndefined();
    expect(harness.sandbox.stats.tokenRequests).toBe(tokensBefore + 1);
    expectNoSecrets(status, { 'lapsed client secret': LAPSED.secret }, 'the status');
  });
});
