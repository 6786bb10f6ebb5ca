import { describe, expect, it } from 'vitest';
import { declaredFeatures } from '../../../../src/connectors/scim/declared-features';

describe('declaredFeatures (ServiceProviderConfig, RFC 7643 §5)', () => {
  it('reads each flag, also as a string, and a positive filter.maxResults', () => {
    expect(
      declaredFeatures({
        changePassword: { supported: false },
        patch: { supported: 'true' },
        filter: { supported: true, maxResults: '100' },
      }),
    ).toEqual({ changePassword: false, patch: true, filter: true, filterMaxResults: 100 });
  });

  it('leaves out what is not declared in a readable form', () => {
    expect(
      declaredFeatures({
        changePassword: { supported: 'no' },
        patch: true,
        filter: { maxResults: 0 },
      }),
    ).toEqual({});
  });
});
