import { describe, expect, it } from 'vitest';
import { redactBulkMessage } from '../../../src/api/redact-bulk-message';
import { expectNoSecrets } from '../../support/no-secrets';

describe('redactBulkMessage', () => {
  it('redacts every key naming a credential, in any case, at any depth, in arrays too', () => {
    const message = [
      {
        requestId: 'r-1',
        password: 'Planted-Pw-1',
        account: {
          accountId: 'ada',
          attributes: { Password: 'Planted-Pw-2', department: 'Sales', userPwd: 'Planted-Pwd-7' },
        },
        options: [{ clientSecret: 'Planted-Secret-3' }, { ACCESS_TOKEN: 'Planted-Token-4' }],
        credential: { value: 'Planted-Credential-5' },
        note: 'called with Bearer Planted-Bearer-6',
      },
    ];
    const redacted = redactBulkMessage(message);
    expectNoSecrets(
      redacted,
      {
        password: 'Planted-Pw-1',
        nested: 'Planted-Pw-2',
        secret: 'Planted-Secret-3',
        token: 'Planted-Token-4',
        credential: 'Planted-Credential-5',
        bearer: 'Planted-Bearer-6',
        // A name the request schema refuses as a secret's is redacted here too: one rule.
        pwd: 'Planted-Pwd-7',
      },
      'the redacted message',
    );
    expect(redacted).toEqual([
      {
        requestId: 'r-1',
        password: '[redacted]',
        account: {
          accountId: 'ada',
          attributes: { Password: '[redacted]', department: 'Sales', userPwd: '[redacted]' },
        },
        options: [{ clientSecret: '[redacted]' }, { ACCESS_TOKEN: '[redacted]' }],
        credential: '[redacted]',
        note: 'called with Bearer [redacted]',
      },
    ]);
  });

  it('reads a JSON text as its JSON, and withholds a text that is not JSON but names a secret', () => {
    expect(redactBulkMessage('{"password":"Planted-Pw-7","n":1}')).toEqual({
      password: '[redacted]',
      n: 1,
    });
    expect(redactBulkMessage('{"connector":"hr","Password":"Planted-Pw-8"')).toBe(
      '[not JSON; withheld because it may contain a secret]',
    );
    expect(redactBulkMessage('hello')).toBe('hello');
  });
});
