import { describe, expect, it } from 'vitest';
import { KeyVaultSecretStore } from '../../../src/secrets/key-vault-secret-store';
import { fixedTokenCredential } from '../../support/keyvault-credential.js';

const credential = fixedTokenCredential('unused');

describe('KeyVaultSecretStore settings', () => {
  it.each([
    ['not a url', 0, 'vaultUrl'],
    ['http://prov.vault.azure.net', 0, 'vaultUrl'],
    ['https://prov.vault.azure.net', -1, 'cacheMs'],
    ['https://prov.vault.azure.net', Number.NaN, 'cacheMs'],
  ])(
    'refuses vaultUrl %s with cacheMs %s as CONFIG_INVALID naming %s',
    (vaultUrl, cacheMs, object) => {
      expect(() => new KeyVaultSecretStore({ vaultUrl, credential, cacheMs })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', object }),
      );
    },
  );

  it('rejects (does not throw) an invalid secret name on every operation', async () => {
    const store = new KeyVaultSecretStore({
      vaultUrl: 'https://prov.vault.azure.net',
      credential,
      cacheMs: 0,
    });
    for (const call of [
      () => store.get('a_b'),
      () => store.set('a_b', 'v'),
      () => store.delete('a_b'),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'REQUEST_INVALID', object: 'a_b' });
    }
  });
});
