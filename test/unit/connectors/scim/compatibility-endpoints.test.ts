import { describe, expect, it } from 'vitest';
import {
  candidateBaseUrls,
  isScimBody,
} from '../../../../src/connectors/scim/compatibility-endpoints';

describe('where else the SCIM endpoints may be', () => {
  it('tries the usual prefixes of built-in services below a bare host', () => {
    expect(candidateBaseUrls('https://app.example')).toEqual([
      'https://app.example/api',
      'https://app.example/api/auth',
      'https://app.example/api/v1',
      'https://app.example/api/v2',
      'https://app.example/auth',
    ]);
  });

  it('tries the parents of a configured path first, nearest first, and never the path itself', () => {
    const candidates = candidateBaseUrls('https://app.example/tenant/scim');
    expect(candidates.slice(0, 2)).toEqual(['https://app.example/tenant', 'https://app.example']);
    expect(candidates).not.toContain('https://app.example/tenant/scim');
    expect(candidates.length).toBeLessThanOrEqual(8);
  });
});

describe('isScimBody: only a SCIM server writes this', () => {
  it('knows SCIM answers, errors included, from an application page or plain JSON', () => {
    expect(
      isScimBody({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        Resources: [],
      }),
    ).toBe(true);
    expect(
      isScimBody({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' }),
    ).toBe(true);
    expect(isScimBody({ Resources: [], totalResults: 0 })).toBe(true);
    expect(isScimBody('<!doctype html><html></html>')).toBe(false);
    expect(isScimBody({ service: 'my app', status: 'ok' })).toBe(false);
    expect(isScimBody(undefined)).toBe(false);
  });
});
