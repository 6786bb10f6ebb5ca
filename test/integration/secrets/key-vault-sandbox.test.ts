import { SecretClient } from '@azure/keyvault-secrets';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_KEY_VAULT_CLIENT,
  startKeyVaultSandbox,
} from '../../../src/sandbox/keyvault/index.js';
import type { KeyVaultSandbox } from '../../../src/sandbox/keyvault/index.js';
import { sandboxClientOptions, sandboxCredential } from '../../support/keyvault-credential.js';

interface VaultBody {
  value?: string;
  id?: string;
  recoveryId?: string;
  error?: { code: string; message: string };
}

let sandbox: KeyVaultSandbox;
let agent: Agent;
let client: SecretClient;

beforeAll(async () => {
  sandbox = await startKeyVaultSandbox();
  agent = new Agent({ connect: { ca: sandbox.ca } });
  client = new SecretClient(
    sandbox.vaultUrl,
    sandboxCredential(sandbox),
    sandboxClientOptions(sandbox),
  );
});

afterAll(async () => {
  await agent.close();
  await sandbox.close();
});

async function vault(
  method: string,
  pathAndQuery: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; challenge: string | null; body: VaultBody }> {
  const response = await fetch(`${sandbox.vaultUrl}${pathAndQuery}`, {
    method,
    dispatcher: agent,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: (await response.json()) as VaultBody,
  };
}

describe('Key Vault sandbox', () => {
  it('answers an unauthenticated request with the bearer challenge of platform-notes.md', async () => {
    const reply = await vault('GET', '/secrets/anything/?api-version=7.6');
    expect(reply.status).toBe(401);
    expect(reply.challenge).toBe(
      `Bearer authorization="${sandbox.authorityHost}/${sandbox.tenantId}", resource="https://vault.azure.net"`,
    );
  });

  it('refuses tokens for another audience or tenant, and accepts its own', async () => {
    sandbox.setSecret('token-check', 'ok');
    const path = '/secrets/token-check/?api-version=7.6';
    const graphToken = await sandbox.tokenFor({ audience: 'https://graph.microsoft.com' });
    const otherTenant = await sandbox.tokenFor({ tenantId: 'another-tenant' });
    expect((await vault('GET', path, { token: graphToken })).status).toBe(401);
    expect((await vault('GET', path, { token: otherTenant })).status).toBe(401);
    expect((await vault('GET', path, { token: 'not-a-jwt' })).status).toBe(401);
    const ok = await vault('GET', path, { token: await sandbox.tokenFor() });
    expect(ok).toMatchObject({ status: 200, body: { value: 'ok' } });
  });

  it('requires api-version, as Key Vault does', async () => {
    const reply = await vault('GET', '/secrets/anything/', { token: await sandbox.tokenFor() });
    expect(reply.status).toBe(400);
    expect(reply.body.error?.code).toBe('BadParameter');
  });

  it('keeps every version: a PUT adds one, GET without version returns the latest', async () => {
    const first = await client.setSecret('versioned', 'v1');
    await client.setSecret('versioned', 'v2');
    expect((await client.getSecret('versioned')).value).toBe('v2');
    expect(
      (await client.getSecret('versioned', { version: first.properties.version! })).value,
    ).toBe('v1');
    expect((await client.getSecret('VERSIONED')).value).toBe('v2');
  });

  it('soft-deletes: DELETE answers a DeletedSecretBundle, /deletedsecrets finds it, the value is gone', async () => {
    await client.setSecret('to-delete', 'bye');
    const poller = await client.beginDeleteSecret('to-delete');
    const deleted = await poller.pollUntilDone();
    expect(deleted.properties.recoveryId).toBe(`${sandbox.vaultUrl}/deletedsecrets/to-delete`);
    expect(deleted.value).toBeUndefined();
    const read = await vault('GET', '/secrets/to-delete/?api-version=7.6', {
      token: await sandbox.tokenFor(),
    });
    expect(read).toMatchObject({ status: 404, body: { error: { code: 'SecretNotFound' } } });
    expect(sandbox.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toContain(
      'GET /deletedsecrets/to-delete 200',
    );
  });

  it('keeps expiresOn and notBefore as Key Vault does: shown, and an expired secret still served', async () => {
    const expiresOn = new Date(Math.floor(Date.now() / 1000) * 1000 - 86_400_000);
    const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 30 * 86_400_000);
    await client.setSecret('expired-secret', 'still-here', { expiresOn, notBefore });
    const read = await client.getSecret('expired-secret');
    expect(read.value).toBe('still-here');
    expect(read.properties.expiresOn).toEqual(expiresOn);
    expect(read.properties.notBefore).toEqual(notBefore);
    const raw = await vault('GET', '/secrets/expired-secret/?api-version=7.6', {
      token: await sandbox.tokenFor(),
    });
    expect(raw.body).toMatchObject({
      attributes: { exp: expiresOn.getTime() / 1000, nbf: notBefore.getTime() / 1000 },
    });
  });

  it("updates a version's expiry, and refuses a disabled secret as Key Vault does", async () => {
    const written = await client.setSecret('rotating', 'v1');
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 10 * 86_400_000);
    const updated = await client.updateSecretProperties('rotating', written.properties.version!, {
      expiresOn: later,
    });
    expect(updated.expiresOn).toEqual(later);
    expect((await client.getSecret('rotating')).properties.expiresOn).toEqual(later);
    await client.updateSecretProperties('rotating', written.properties.version!, {
      enabled: false,
    });
    const refused = await vault('GET', '/secrets/rotating/?api-version=7.6', {
      token: await sandbox.tokenFor(),
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: { code: 'Forbidden', innererror: { code: 'SecretDisabled' } } },
    });
  });

  it('issues tokens only for the vault resource', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEFAULT_KEY_VAULT_CLIENT.clientId,
      client_secret: DEFAULT_KEY_VAULT_CLIENT.secret,
      scope: 'https://graph.microsoft.com/.default',
    });
    const response = await fetch(`${sandbox.authorityHost}/${sandbox.tenantId}/oauth2/v2.0/token`, {
      method: 'POST',
      dispatcher: agent,
      body: form,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_resource');
  });
});
