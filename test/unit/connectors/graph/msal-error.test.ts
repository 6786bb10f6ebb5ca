import { ServerError, AuthError } from '@azure/msal-node';
import { describe, expect, it } from 'vitest';
import { mapMsalError } from '../../../../src/connectors/graph/msal-error';
import {
  buildAuthorityMetadata,
  isLoopbackAuthority,
} from '../../../../src/connectors/graph/authority-metadata';
import { ProvisioningError } from '../../../../src/domain/errors';

const context = {
  connector: 'entra',
  authority: 'https://login.example/t1',
  secretName: 'entra-client-secret',
  secrets: ['s3cr3t-value-1'],
};

describe('mapMsalError', () => {
  it('names the OAuth error and the AADSTS number, never the secret', () => {
    const server = new ServerError(
      'invalid_client',
      'corr',
      'Error(s): 7000215 - Timestamp: now - Description: AADSTS7000215: Invalid client secret provided (s3cr3t-value-1). - Correlation ID: c - Trace ID: t',
      '',
      '7000215',
      401,
    );
    const error = mapMsalError(server, context);
    expect(error.code).toBe('GRAPH_TOKEN_FAILED');
    expect(error.message).toContain('invalid_client (AADSTS7000215)');
    expect(error.message).toContain('client secret "entra-client-secret"');
    expect(error.message).not.toContain('s3cr3t-value-1');
    expect(error.message).not.toContain('Trace ID');
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ oauthError: 'invalid_client', aadsts: 'AADSTS7000215' });
  });

  it('names an expired client secret (AADSTS7000222) by its own code', () => {
    const server = new ServerError(
      'invalid_client',
      'corr',
      "Error(s): 7000222 - Description: AADSTS7000222: The provided client secret keys for app '1111' are expired.",
      '',
      '7000222',
      401,
    );
    const error = mapMsalError(server, context);
    expect(error).toMatchObject({
      code: 'GRAPH_CLIENT_SECRET_EXPIRED',
      object: 'entra',
      retryable: false,
      details: { oauthError: 'invalid_client', aadsts: 'AADSTS7000222' },
    });
    expect(error.message).toContain('connector "entra"');
  });

  it('a network failure is retryable', () => {
    const error = mapMsalError(
      new AuthError('network_error', 'corr', 'Network request failed: ECONNREFUSED'),
      context,
    );
    expect(error).toMatchObject({ code: 'GRAPH_TOKEN_FAILED', retryable: true });
  });

  it('passes a ProvisioningError (a missing secret) through', () => {
    const missing = new ProvisioningError('SECRET_NOT_FOUND', 'secret "x" not found');
    expect(mapMsalError(missing, context)).toBe(missing);
  });
});

describe('authority metadata', () => {
  it('points MSAL at the tenant endpoints of a local authority', () => {
    const metadata = JSON.parse(buildAuthorityMetadata('https://127.0.0.1:9443', 't1')) as Record<
      string,
      string
    >;
    expect(metadata.token_endpoint).toBe('https://127.0.0.1:9443/t1/oauth2/v2.0/token');
    expect(metadata.issuer).toBe('https://127.0.0.1:9443/t1/v2.0');
    expect(Object.keys(metadata).sort()).toEqual(
      [
        'authorization_endpoint',
        'end_session_endpoint',
        'issuer',
        'jwks_uri',
        'token_endpoint',
      ].sort(),
    );
  });

  it('knows a loopback authority from a public one', () => {
    expect(isLoopbackAuthority('https://127.0.0.1:9443')).toBe(true);
    expect(isLoopbackAuthority('https://login.microsoftonline.us')).toBe(false);
  });
});
