import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD_SWEEP_AFTER_MS,
  REQUEST_PASSWORD_TTL_MS,
  sweepRequestPasswords,
} from '../../../src/api/password-sweep-timer';
import { submitProvisioningRequest } from '../../../src/api/submit-request';
import { silentLogger } from '../../../src/domain/logger';
import { startKeyVaultSandbox, type KeyVaultSandbox } from '../../../src/sandbox/keyvault/index.js';
import { KeyVaultSecretStore } from '../../../src/secrets/key-vault-secret-store';
import { requestInstanceId } from '../../../src/workflows/names';
import type {
  OrchestrationClient,
  OrchestrationState,
  RuntimeStatus,
} from '../../../src/workflows/orchestration-client';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { sandboxClientOptions, sandboxCredential } from '../../support/keyvault-credential';

/*
 * Request passwords nothing else deletes (a crash or a refused start whose delete failed, a
 * request ended Failed or Terminated before discarding it) are deleted by the hourly sweep;
 * the password of a request that may still read it never is. Judged on the Key Vault
 * sandbox's vault.
 */
let vault: KeyVaultSandbox;
let store: KeyVaultSecretStore;
const clock = Date.parse('2026-11-22T08:00:00Z');

beforeAll(async () => {
  vault = await startKeyVaultSandbox({ now: () => clock });
  store = new KeyVaultSecretStore({
    vaultUrl: vault.vaultUrl,
    credential: sandboxCredential(vault),
    cacheMs: 0,
    clientOptions: sandboxClientOptions(vault),
  });
});
afterAll(async () => {
  await vault?.close();
});

/** Instances by request id: status and the password secret their input carries. */
function orchestrationsOf(instances: Record<string, [RuntimeStatus, string?]>) {
  return {
    getStatus: async (instanceId: string) => {
      const found = Object.entries(instances).find(([id]) => requestInstanceId(id) === instanceId);
      if (found === undefined) return undefined;
      const [status, passwordSecret] = found[1];
      return {
        instanceId,
        runtimeStatus: status,
        input: passwordSecret === undefined ? {} : { passwordSecret },
      } as OrchestrationState;
    },
  };
}

const tagged = (requestId: string) => ({
  tags: { requestId },
  expiresOn: new Date(clock + REQUEST_PASSWORD_TTL_MS),
});

describe('the sweep of request passwords', () => {
  it('deletes those of requests ended or never started, and keeps a running request’s', async () => {
    const pw = 'Sweep-Me-Pw-1!';
    await store.set('request-password-ended', pw, tagged('r-ended'));
    await store.set('request-password-failed', pw, tagged('r-failed'));
    await store.set('request-password-never', pw, tagged('r-never'));
    await store.set('request-password-running', pw, tagged('r-running'));
    await store.set('request-password-lost-race', pw, tagged('r-race'));
    await store.set('request-password-untagged-expired', pw, {
      expiresOn: new Date(clock + 3_600_000),
    });
    await store.set('request-password-untagged', pw);
    await store.set('scim-hr-token', 'not-a-request-password');
    const orchestrations = orchestrationsOf({
      'r-ended': ['Completed', 'request-password-ended'],
      'r-failed': ['Terminated', 'request-password-failed'],
      'r-running': ['Running', 'request-password-running'],
      'r-race': ['Running', 'request-password-another'],
    });

    // Young secrets are left alone whatever their request: it may be starting.
    expect(
      await sweepRequestPasswords(store, orchestrations, clock + 60_000, silentLogger),
    ).toEqual({ deleted: 0, kept: 7 });
    const later = clock + PASSWORD_SWEEP_AFTER_MS + 3_600_000;
    expect(await sweepRequestPasswords(store, orchestrations, later, silentLogger)).toEqual({
      deleted: 5,
      kept: 2,
    });
    for (const name of [
      'request-password-ended',
      'request-password-failed',
      'request-password-never',
      'request-password-lost-race',
      'request-password-untagged-expired',
    ]) {
      expect(vault.currentValue(name), name).toBeUndefined();
      expect(vault.isDeleted(name), name).toBe(true);
    }
    expect(vault.currentValue('request-password-running')).toBe(pw);
    expect(vault.currentValue('request-password-untagged')).toBe(pw);
    expect(vault.currentValue('scim-hr-token')).toBe('not-a-request-password');
  });

  it('deletes the password of a request whose start failed and whose delete failed too', async () => {
    const services = {
      registry: {
        settings: (name: string) => (name === 'hr' ? { name } : undefined),
        get: () => ({
          capabilities: {
            visibilityWindowMs: 0,
            membershipReadScope: 'named',
            membershipWriteBatchSize: 1,
            membershipWritesSayIfInPlace: false,
          },
        }),
      },
      secrets: store,
      logger: silentLogger,
    } as unknown as WorkflowServices;
    const orchestrations: OrchestrationClient = {
      startNew: async () => {
        throw new Error('task hub unavailable');
      },
      getStatus: async () => undefined,
    };
    const before = new Set((await store.list('request-password-')).map((secret) => secret.name));
    vault.injectFault({ status: 503, method: 'DELETE' });
    await expect(
      submitProvisioningRequest(
        {
          requestId: 'r-crashed',
          connector: 'hr',
          account: { accountId: 'ada' },
          password: 'Left-Behind-Pw-2!',
          actions: [{ type: 'create' }],
        },
        services,
        orchestrations,
        { source: 'http', now: new Date(clock) },
      ),
    ).rejects.toThrow();
    const left = (await store.list('request-password-')).filter((s) => !before.has(s.name));
    expect(left).toHaveLength(1);
    const [secret] = left;
    // Tied to its request, with an expiry the vault shows.
    expect(secret!.tags).toEqual({ requestId: 'r-crashed' });
    expect(secret!.expiresOn?.getTime()).toBe(clock + REQUEST_PASSWORD_TTL_MS);
    expect(vault.currentValue(secret!.name)).toBe('Left-Behind-Pw-2!');

    const later = clock + PASSWORD_SWEEP_AFTER_MS + 60_000;
    await sweepRequestPasswords(store, orchestrations, later, silentLogger);
    expect(vault.currentValue(secret!.name)).toBeUndefined();
    expect(vault.isDeleted(secret!.name)).toBe(true);
  });
});
