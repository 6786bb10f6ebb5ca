import { describe, expect, it } from 'vitest';
import {
  credentialState,
  daysUntilExpiry,
  earliestExpiry,
  expiryNotice,
  type CredentialExpiry,
} from '../../../src/domain/credential-expiry';

const NOW = Date.parse('2026-11-24T00:00:00Z');
const at = (iso: string, source: CredentialExpiry['source'] = 'secret store') => ({
  expiresOn: iso,
  source,
});

describe('credential expiry', () => {
  it('counts days with their fraction, negative once expired', () => {
    expect(daysUntilExpiry(at('2026-12-04T12:00:00Z'), NOW)).toBe(10.5);
    expect(daysUntilExpiry(at('2026-11-23T00:00:00Z'), NOW)).toBe(-1);
  });

  it('shows whole days left, rounded down, and whether it has expired', () => {
    expect(credentialState(at('2026-12-04T12:00:00Z'), NOW)).toMatchObject({
      daysLeft: 10,
      expired: false,
    });
    expect(credentialState(at('2026-11-24T00:00:00Z'), NOW)).toMatchObject({ expired: true });
  });

  it('takes the earlier of the secret store and the setting, ignoring what is unknown', () => {
    const store = at('2027-03-01T00:00:00.000Z');
    const setting = at('2027-01-01T00:00:00.000Z', 'setting');
    expect(earliestExpiry([store, setting])).toBe(setting);
    expect(earliestExpiry([undefined, store])).toBe(store);
    expect(earliestExpiry([undefined, undefined])).toBeUndefined();
  });

  it('gives a notice under 30 days and once expired, naming the connector and the source', () => {
    const in10 = credentialState(at('2026-12-04T12:00:00Z'), NOW);
    expect(expiryNotice('entra', in10)).toBe(
      'the client secret of connector "entra" expires on 2026-12-04 (in 10 days), as its secret store says: add a new secret to the app registration and store it under the same name',
    );
    const expired = credentialState(at('2026-11-20T00:00:00Z', 'setting'), NOW);
    expect(expiryNotice('entra', expired)).toMatch(/expired on 2026-11-20, as its setting says/);
    expect(expiryNotice('entra', credentialState(at('2026-12-24T00:00:00Z'), NOW))).toBe(undefined);
    expect(expiryNotice('entra', credentialState(at('2026-12-23T23:00:00Z'), NOW))).toMatch(
      /in 29 days/,
    );
    expect(expiryNotice('entra', undefined)).toBeUndefined();
  });
});
