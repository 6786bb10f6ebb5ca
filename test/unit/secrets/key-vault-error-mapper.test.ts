import { AuthenticationError, CredentialUnavailableError } from '@azure/identity';
import { RestError } from '@azure/core-rest-pipeline';
import { describe, expect, it } from 'vitest';
import { isKeyVaultNotFound, mapKeyVaultError } from '../../../src/secrets/key-vault-error-mapper';
import { expectNoSecrets } from '../../support/no-secrets';

const context = {
  operation: 'set' as const,
  name: 'db-password',
  vaultHost: 'prov.vault.azure.net',
};
const SECRET = 'echoed-secret-value-77';

function restError(statusCode: number | undefined, code?: string): RestError {
  return new RestError(`body says: ${SECRET}`, { statusCode, code });
}

describe('mapKeyVaultError', () => {
  it.each([
    [404, 'SECRET_NOT_FOUND', false],
    [401, 'TARGET_AUTH_FAILED', false],
    [403, 'TARGET_AUTH_FAILED', false],
    [409, 'REQUEST_CONFLICT', false],
    [429, 'TARGET_THROTTLED', true],
    [500, 'TARGET_UNAVAILABLE', true],
    [503, 'TARGET_UNAVAILABLE', true],
    [400, 'REQUEST_INVALID', false],
    [418, 'TARGET_RESPONSE_INVALID', false],
  ] as const)('HTTP %i becomes %s (retryable %s)', (status, code, retryable) => {
    const error = mapKeyVaultError(restError(status, 'SomeCode'), context);
    expect(error).toMatchObject({ code, retryable, status, object: 'db-password' });
    expect(error.message).toContain('prov.vault.azure.net');
    expectNoSecrets(error.message, { secret: SECRET }, 'the message');
    expect(error.cause).toBeUndefined();
  });

  it('names the vault, the operation and the missing permission on 403', () => {
    const error = mapKeyVaultError(restError(403, 'Forbidden'), context);
    expect(error.message).toBe(
      'Key Vault prov.vault.azure.net denied the service identity the secrets set permission (HTTP 403) while writing secret "db-password": the identity lacks access to this vault',
    );
    expect(error.details).toEqual({ status: 403, keyVaultCode: 'Forbidden' });
  });

  it('words a missing secret as the SecretStore port promises', () => {
    const error = mapKeyVaultError(restError(404, 'SecretNotFound'), {
      ...context,
      operation: 'get',
    });
    expect(error.message).toBe('secret "db-password" not found in Key Vault prov.vault.azure.net');
  });

  it('treats a failure without a status (connection refused) as a retryable outage', () => {
    const error = mapKeyVaultError(restError(undefined, 'ECONNREFUSED'), context);
    expect(error).toMatchObject({ code: 'TARGET_UNAVAILABLE', retryable: true });
    expect(error.message).toBe(
      'Key Vault prov.vault.azure.net could not be reached while writing secret "db-password"',
    );
  });

  it('copies only identifier-like Key Vault codes into details', () => {
    const error = mapKeyVaultError(restError(400, `Bad ${SECRET}`), context);
    expect(error.details).toEqual({ status: 400 });
  });

  it('reports a credential that cannot get a token as TARGET_AUTH_FAILED with the OAuth error', () => {
    const failed = new AuthenticationError(401, {
      error: 'invalid_client',
      error_description: `AADSTS7000215: Invalid client secret ${SECRET}`,
    });
    const error = mapKeyVaultError(failed, context);
    expect(error.code).toBe('TARGET_AUTH_FAILED');
    expect(error.details).toEqual({
      credentialError: 'AuthenticationError',
      oauthError: 'invalid_client',
    });
    expectNoSecrets(error.message, { secret: SECRET }, 'the message');

    const unavailable = mapKeyVaultError(
      new CredentialUnavailableError('no managed identity'),
      context,
    );
    expect(unavailable.code).toBe('TARGET_AUTH_FAILED');
    expect(unavailable.message).toContain(
      'could not get a token for Key Vault prov.vault.azure.net',
    );
  });

  it('reads the OAuth error from the start of an MSAL-based credential message only', () => {
    const wrapped = Object.assign(new Error(`invalid_client: Error(s): 7000215 ${SECRET}`), {
      name: 'AuthenticationRequiredError',
    });
    const error = mapKeyVaultError(wrapped, context);
    expect(error.details).toEqual({
      credentialError: 'AuthenticationRequiredError',
      oauthError: 'invalid_client',
    });
    expectNoSecrets(error, { secret: SECRET }, 'the error');
  });

  it('reports a timeout as retryable TARGET_TIMEOUT and anything else as INTERNAL_ERROR', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(mapKeyVaultError(abort, context)).toMatchObject({
      code: 'TARGET_TIMEOUT',
      retryable: true,
    });
    expect(mapKeyVaultError(new TypeError(SECRET), context)).toMatchObject({
      code: 'INTERNAL_ERROR',
      message:
        'unexpected TypeError while writing secret "db-password" in Key Vault prov.vault.azure.net',
    });
  });
});

describe('isKeyVaultNotFound', () => {
  it('is true only for a 404 RestError', () => {
    expect(isKeyVaultNotFound(restError(404))).toBe(true);
    expect(isKeyVaultNotFound(restError(403))).toBe(false);
    expect(isKeyVaultNotFound(new Error('404'))).toBe(false);
  });
});
