import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import { startKeyVaultSandbox } from '../../../src/sandbox/keyvault/index.js';
import type { KeyVaultSandbox } from '../../../src/sandbox/keyvault/index.js';
import { KeyVaultSecretStore } from '../../../src/secrets/key-vault-secret-store';
import type { TokenCredential } from '@azure/identity';
import {
  fixedTokenCredential,
  sandboxClientOptions,
  sandboxCredential,
} from '../../support/keyvault-credential.js';
import { expectNoSecrets } from '../../support/no-secrets';

const READER = {
  clientId: 'reader-app',
  secret: 'reader-app-secret-1',
  permissions: ['get' as const],
};
const WRITER = {
  clientId: 'writer-app',
  secret: 'writer-app-secret-1',
  permissions: ['get' as const, 'set' as const, 'delete' as const],
};

let sandbox: KeyVaultSandbox;
let clock = 1_700_000_000_000;
let vaultHost: string;

beforeAll(async () => {
  sandbox = await startKeyVaultSandbox({ clients: [WRITER, READER] });
  vaultHost = new URL(sandbox.vaultUrl).host;
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(() => {
  sandbox.clearRequests();
});

function storeWith(
  options: { cacheMs?: number; credential?: TokenCredential; vaultUrl?: string } = {},
): KeyVaultSecretStore {
  return new KeyVaultSecretStore({
    vaultUrl: options.vaultUrl ?? sandbox.vaultUrl,
    credential: options.credential ?? sandboxCredential(sandbox, WRITER),
    cacheMs: options.cacheMs ?? 0,
    clock: () => clock,
    clientOptions: sandboxClientOptions(sandbox),
  });
}

async function failureOf(promise: Promise<unknown>): Promise<ProvisioningError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProvisioningError);
  return error as ProvisioningError;
}

/**
 * Every string reachable from a value through own properties, enumerable or not (an
 * SDK RestError keeps its request, body included, in non-enumerable ones), so that a
 * secret passed on as a `cause` is found too.
 */
function reachableText(value: unknown, seen = new Set<unknown>(), depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return [];
  seen.add(value);
  const texts: string[] = [];
  for (const key of Object.getOwnPropertyNames(value)) {
    const child: unknown = Reflect.get(value, key);
    texts.push(...reachableText(typeof child === 'function' ? undefined : child, seen, depth + 1));
  }
  if (value instanceof Map) texts.push(...reachableText([...value.entries()], seen, depth + 1));
  return texts;
}

describe('KeyVaultSecretStore against the Key Vault sandbox', () => {
  it('runs the bearer challenge flow: unauthenticated first, then with a token from the authority', async () => {
    sandbox.setSecret('challenge-demo', 'first-value');
    const tokensBefore = sandbox.stats.tokenRequests;

    expect(await storeWith().get('challenge-demo')).toBe('first-value');

    expect(sandbox.requests).toEqual([
      { method: 'GET', path: '/secrets/challenge-demo/', status: 401, authorized: false },
      { method: 'GET', path: '/secrets/challenge-demo/', status: 200, authorized: true },
    ]);
    expect(sandbox.stats.tokenRequests).toBe(tokensBefore + 1);
  });

  it('writes, reads back from another store, and deletes a secret', async () => {
    const writer = storeWith();
    await writer.set('round-trip', 'value-one');
    await writer.set('round-trip', 'value-two');
    expect(sandbox.currentValue('round-trip')).toBe('value-two');
    expect(await storeWith().get('round-trip')).toBe('value-two');

    await writer.delete('round-trip');
    expect(sandbox.isDeleted('round-trip')).toBe(true);
    const error = await failureOf(writer.get('round-trip'));
    expect(error.code).toBe('SECRET_NOT_FOUND');
  });

  it('reports a missing secret as SECRET_NOT_FOUND naming the secret and the vault', async () => {
    const error = await failureOf(storeWith().get('no-such-secret'));
    expect(error.code).toBe('SECRET_NOT_FOUND');
    expect(error.message).toBe(`secret "no-such-secret" not found in Key Vault ${vaultHost}`);
    expect(error.object).toBe('no-such-secret');
    expect(error.retryable).toBe(false);
  });

  it('returns the cached value until cacheMs has passed, then the rotated one', async () => {
    sandbox.setSecret('rotating', 'before-rotation');
    const store = storeWith({ cacheMs: 1_000 });
    expect(await store.get('rotating')).toBe('before-rotation');

    sandbox.setSecret('rotating', 'after-rotation');
    clock += 999;
    expect(await store.get('rotating')).toBe('before-rotation');
    clock += 1;
    expect(await store.get('rotating')).toBe('after-rotation');
    const reads = sandbox.requests.filter(
      (r) => r.path === '/secrets/rotating/' && r.status === 200,
    );
    expect(reads).toHaveLength(2);
  });

  it("reads a secret's expiry with its value, from the same read and cached as long", async () => {
    const in10Days = new Date(Math.floor(clock / 1000) * 1000 + 10 * 86_400_000);
    sandbox.setSecret('expiring', 'v1', { expiresOn: in10Days });
    sandbox.setSecret('lasting', 'v1');
    const store = storeWith({ cacheMs: 60_000 });
    expect(await store.expiresOn('expiring')).toEqual(in10Days);
    expect(await store.get('expiring')).toBe('v1');
    expect(await store.expiresOn('lasting')).toBeUndefined();
    expect(sandbox.requests.filter((r) => r.status === 200).map((r) => r.path)).toEqual([
      '/secrets/expiring/',
      '/secrets/lasting/',
    ]);
    // A new version without an expiry replaces the old one's once the cache has passed.
    sandbox.setSecret('expiring', 'v2');
    clock += 60_000;
    expect(await store.expiresOn('expiring')).toBeUndefined();
    expect((await failureOf(store.expiresOn('never-set'))).code).toBe('SECRET_NOT_FOUND');
  });

  it('reads again every time with cacheMs 0, but concurrent reads share one request', async () => {
    sandbox.setSecret('shared-read', 'shared');
    const store = storeWith({ cacheMs: 0 });
    await store.get('shared-read');
    sandbox.clearRequests();

    const values = await Promise.all([
      store.get('shared-read'),
      store.get('shared-read'),
      store.get('SHARED-READ'),
    ]);
    expect(values).toEqual(['shared', 'shared', 'shared']);
    expect(sandbox.requests).toHaveLength(1);

    await store.get('shared-read');
    expect(sandbox.requests).toHaveLength(2);
  });

  it('serves a value it just wrote from the cache and forgets it on delete', async () => {
    const store = storeWith({ cacheMs: 60_000 });
    await store.set('written-then-read', 'fresh');
    sandbox.clearRequests();
    expect(await store.get('written-then-read')).toBe('fresh');
    expect(sandbox.requests).toEqual([]);

    await store.delete('written-then-read');
    const error = await failureOf(store.get('written-then-read'));
    expect(error.code).toBe('SECRET_NOT_FOUND');
  });

  it('treats deleting an absent secret as done', async () => {
    await expect(storeWith().delete('never-existed')).resolves.toBeUndefined();
    expect(sandbox.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 404 });
  });

  it('refuses a name Key Vault would not accept, without calling the vault', async () => {
    const error = await failureOf(storeWith().get('bad_name/with-slash'));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toContain('"bad_name/with-slash"');
    expect(sandbox.requests).toEqual([]);
  });

  it('reports a wrong client secret as TARGET_AUTH_FAILED naming the vault', async () => {
    const credential = sandboxCredential(sandbox, {
      clientId: WRITER.clientId,
      secret: 'wrong-secret-42',
    });
    const error = await failureOf(storeWith({ credential }).get('anything'));
    expect(error.code).toBe('TARGET_AUTH_FAILED');
    expect(error.message).toContain(`Key Vault ${vaultHost}`);
    expect(error.details).toMatchObject({ oauthError: 'invalid_client' });
    expectNoSecrets(error, { 'wrong client secret': 'wrong-secret-42' }, 'the error');
  });

  it('refuses a token issued for another audience with 401, as TARGET_AUTH_FAILED', async () => {
    sandbox.setSecret('audience-check', 'x');
    const graphToken = await sandbox.tokenFor({
      clientId: WRITER.clientId,
      audience: 'https://graph.microsoft.com',
    });
    const error = await failureOf(
      storeWith({ credential: fixedTokenCredential(graphToken) }).get('audience-check'),
    );
    expect(error.code).toBe('TARGET_AUTH_FAILED');
    expect(error.status).toBe(401);
    expect(error.message).toContain(vaultHost);
    expect(sandbox.requests.filter((r) => r.authorized).map((r) => r.status)).toEqual([401]);
  });

  it('reports a missing permission (403) as TARGET_AUTH_FAILED naming the permission', async () => {
    const reader = storeWith({ credential: sandboxCredential(sandbox, READER) });
    const error = await failureOf(reader.set('reader-write', 'not-allowed'));
    expect(error.code).toBe('TARGET_AUTH_FAILED');
    expect(error.status).toBe(403);
    expect(error.message).toContain('secrets set permission');
    expect(error.message).toContain('lacks access');
  });

  it('reports a vault failure (5xx) as retryable TARGET_UNAVAILABLE', async () => {
    sandbox.setSecret('during-outage', 'x');
    const store = storeWith();
    await store.get('during-outage');
    sandbox.injectFault({ status: 503 });
    const error = await failureOf(store.get('during-outage'));
    expect(error.code).toBe('TARGET_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(503);
  });

  it('reports an unreachable vault as retryable TARGET_UNAVAILABLE', async () => {
    const gone = await startKeyVaultSandbox();
    await gone.close();
    const store = new KeyVaultSecretStore({
      vaultUrl: gone.vaultUrl,
      credential: sandboxCredential(gone),
      cacheMs: 0,
      clientOptions: sandboxClientOptions(gone),
    });
    const error = await failureOf(store.get('anything'));
    expect(error.code).toBe('TARGET_UNAVAILABLE');
    expect(error.retryable).toBe(true);
  });

  it('reports reusing the name of a soft-deleted secret as REQUEST_CONFLICT', async () => {
    const store = storeWith();
    await store.set('soft-deleted', 'one');
    await store.delete('soft-deleted');
    const error = await failureOf(store.set('soft-deleted', 'two'));
    expect(error.code).toBe('REQUEST_CONFLICT');
    expect(error.message).toContain('"soft-deleted"');
  });

  it('never puts a secret value into an error, whatever fails', async () => {
    const planted = 'PLANTED-VALUE-9c1f3e';
    const store = storeWith();
    await store.set('planted-deleted', planted);
    await store.delete('planted-deleted');
    sandbox.setSecret('planted-readable', planted);
    const reader = storeWith({ credential: sandboxCredential(sandbox, READER) });

    const failures = [
      await failureOf(store.set('planted-deleted', planted)),
      await failureOf(reader.set('planted-forbidden', planted)),
      await failureOf(store.set('planted-too-large', planted.repeat(3_000))),
    ];
    await store.get('planted-readable');
    sandbox.injectFault({ status: 500 });
    failures.push(await failureOf(store.set('planted-5xx', planted)));
    expect(failures.map((e) => e.code)).toEqual([
      'REQUEST_CONFLICT',
      'TARGET_AUTH_FAILED',
      'REQUEST_INVALID',
      'TARGET_UNAVAILABLE',
    ]);
    for (const error of failures) {
      expect(reachableText(error).filter((text) => text.includes(planted))).toEqual([]);
    }
  });
});
