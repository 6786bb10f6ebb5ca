/** The settings of the service's telemetry, read before anything else loads (issue 19). */
export interface TelemetrySettings {
  /** Application Insights: telemetry is exported there when set (Azure). */
  connectionString?: string;
  /**
   * Entra ID authentication of the export (APPLICATIONINSIGHTS_AUTHENTICATION_STRING
   * `ClientId=<id>;Authorization=AAD`): the managed identity to use, `system` for the
   * system-assigned one. Undefined: the connection string's key (local authentication).
   */
  managedIdentity?: { clientId: string } | 'system';
  /** Account IDs (personal data) may appear in exported spans and logs. Default false. */
  accountIds: boolean;
}

export const TELEMETRY_ENV = {
  connectionString: 'APPLICATIONINSIGHTS_CONNECTION_STRING',
  authentication: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
  accountIds: 'TELEMETRY_ACCOUNT_IDS',
} as const;

/**
 * Reads the telemetry settings; each problem is added to `problems`, naming the setting.
 *
 * @example
 * readTelemetrySettings({ TELEMETRY_ACCOUNT_IDS: 'true' }, []); // { accountIds: true }
 */
export function readTelemetrySettings(
  env: Record<string, string | undefined>,
  problems: string[],
): TelemetrySettings {
  const connectionString = env[TELEMETRY_ENV.connectionString]?.trim() || undefined;
  const flag = env[TELEMETRY_ENV.accountIds]?.trim().toLowerCase() || 'false';
  if (flag !== 'true' && flag !== 'false') {
    problems.push(`setting ${TELEMETRY_ENV.accountIds}: must be true or false`);
  }
  const managedIdentity = readAuthentication(env[TELEMETRY_ENV.authentication], problems);
  return {
    ...(connectionString === undefined ? {} : { connectionString }),
    ...(managedIdentity === undefined ? {} : { managedIdentity }),
    accountIds: flag === 'true',
  };
}

/** `Authorization=AAD` with an optional `ClientId=<id>`, in any order, as App Service writes it. */
function readAuthentication(
  value: string | undefined,
  problems: string[],
): TelemetrySettings['managedIdentity'] {
  if (value === undefined || value.trim() === '') return undefined;
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const [key, ...rest] = part.split('=');
    if (key !== undefined && key.trim() !== '')
      parts.set(key.trim().toLowerCase(), rest.join('=').trim());
  }
  if (parts.get('authorization')?.toUpperCase() !== 'AAD') {
    problems.push(
      `setting ${TELEMETRY_ENV.authentication}: must be "Authorization=AAD" or "ClientId=<client id>;Authorization=AAD"`,
    );
    return undefined;
  }
  const clientId = parts.get('clientid');
  return clientId === undefined || clientId === '' ? 'system' : { clientId };
}
