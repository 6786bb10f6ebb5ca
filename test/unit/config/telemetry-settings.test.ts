import { describe, expect, it } from 'vitest';
import { readTelemetrySettings } from '../../../src/config/telemetry-settings';

const read = (env: Record<string, string>) => {
  const problems: string[] = [];
  return { settings: readTelemetrySettings(env, problems), problems };
};

describe('telemetry settings', () => {
  it('keep account IDs out and export nowhere by default', () => {
    expect(read({})).toEqual({ settings: { accountIds: false }, problems: [] });
  });

  it('read the connection string, the managed identity and the account ID permission', () => {
    expect(
      read({
        APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=k;IngestionEndpoint=https://x/',
        APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=2222;Authorization=AAD',
        TELEMETRY_ACCOUNT_IDS: 'TRUE',
      }).settings,
    ).toEqual({
      connectionString: 'InstrumentationKey=k;IngestionEndpoint=https://x/',
      managedIdentity: { clientId: '2222' },
      accountIds: true,
    });
    expect(
      read({ APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD' }).settings,
    ).toMatchObject({ managedIdentity: 'system' });
  });

  it('name a setting they cannot read', () => {
    expect(
      read({
        TELEMETRY_ACCOUNT_IDS: 'yes',
        APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=2222',
      }).problems,
    ).toEqual([
      'setting TELEMETRY_ACCOUNT_IDS: must be true or false',
      'setting APPLICATIONINSIGHTS_AUTHENTICATION_STRING: must be "Authorization=AAD" or "ClientId=<client id>;Authorization=AAD"',
    ]);
  });
});
