import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normaliseScimBaseUrl } from '../../../src/config/base-url';

describe('normaliseScimBaseUrl', () => {
  it.each([
    ['https://app.example', 'https://app.example'],
    ['https://app.example/', 'https://app.example'],
    ['https://app.example/scim/v2', 'https://app.example'],
    ['https://app.example/scim/v2/', 'https://app.example'],
    ['https://app.example/tenant/SCIM/V2//', 'https://app.example/tenant'],
    ['https://app.example/api/scim', 'https://app.example/api/scim'],
    ['https://app.example/scim/v2/extra', 'https://app.example/scim/v2/extra'],
  ])('%s -> %s', (input, expected) => {
    expect(normaliseScimBaseUrl(input)).toBe(expected);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.10.0.5', true],
    ['localhost', true],
    ['[::1]', true],
    ['10.0.0.1', false],
    ['127.example.com', false],
    ['app.example', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
