import { describe, expect, it } from 'vitest';
import { assertKeyVaultSecretName } from '../../../src/secrets/key-vault-secret-name';

describe('assertKeyVaultSecretName', () => {
  it.each(['a', 'scim-hr-bearer-token', 'Pw-0123', 'x'.repeat(127)])('accepts %s', (name) => {
    expect(() => assertKeyVaultSecretName(name)).not.toThrow();
  });

  it.each(['', 'hr_token', 'a/b', 'with space', 'ümlaut', 'x'.repeat(128)])(
    'refuses "%s" with REQUEST_INVALID naming it',
    (name) => {
      expect(() => assertKeyVaultSecretName(name)).toThrow(
        expect.objectContaining({
          code: 'REQUEST_INVALID',
          object: name,
          message: expect.stringContaining(`"${name}"`),
        }),
      );
    },
  );
});
