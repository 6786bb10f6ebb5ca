import { z } from 'zod';
import { ProvisioningError } from '../domain/errors';
import { retentionTooShort, WRITE_INTENT_RETENTION } from '../domain/write-intent-retention';
import type { ConnectorSettings, ConnectorSettingsKinds } from './connector-settings';
import { readTelemetrySettings, type TelemetrySettings } from './telemetry-settings';

const secretStoreSchema = z.discriminatedUnion('provider', [
  z.object({
    provider: z.literal('local'),
    /** Development only: secret name -> value. Production uses Key Vault. */
    values: z.record(z.string(), z.string()).default({}),
  }),
  z.object({ provider: z.literal('keyvault'), vaultUrl: z.url({ protocol: /^https$/ }) }),
]);

/** Where tables and the bulk queue live: a connection string, or the managed identity. */
export type StorageConnection =
  | { kind: 'connectionString'; connectionString: string }
  | { kind: 'identity'; accountName: string; clientId?: string };

export interface AppConfig {
  connectors: ConnectorSettings[];
  secretStore: z.output<typeof secretStoreSchema>;
  /** How long a secret read from Key Vault is reused, so rotated secrets are picked up. */
  secretCacheMs: number;
  /** Undefined when neither connection is set: only the local host may run without one. */
  storage: StorageConnection | undefined;
  bulkQueueName: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  localHost: { port: number; apiKey: string | undefined };
  /**
   * True when App Service Authentication runs in front of the app: only then does the
   * platform strip `x-ms-client-principal` from what callers send and set it itself, so only
   * then may the API believe it.
   */
  appServiceAuthentication: boolean;
  /** Application Insights and what telemetry may carry (src/config/telemetry-settings.ts). */
  telemetry: TelemetrySettings;
  /** Days write intents are kept after their request's day (src/domain/write-intent-retention.ts). */
  writeIntentRetentionDays: number;
}

/** The environment variables the service reads, and nothing else (DESIGN: src/config). */
export const ENV = {
  connectors: 'PROVISIONING_CONNECTORS',
  secretStore: 'SECRET_STORE',
  vaultUrl: 'KEY_VAULT_URL',
  localSecrets: 'LOCAL_SECRETS',
  secretCacheSeconds: 'SECRET_CACHE_SECONDS',
  storageConnectionString: 'AzureWebJobsStorage',
  storageAccountName: 'AzureWebJobsStorage__accountName',
  storageClientId: 'AzureWebJobsStorage__clientId',
  bulkQueueName: 'BULK_QUEUE_NAME',
  logLevel: 'LOG_LEVEL',
  localHostPort: 'LOCAL_HOST_PORT',
  localHostApiKey: 'LOCAL_HOST_API_KEY',
  writeIntentRetentionDays: 'WRITE_INTENT_RETENTION_DAYS',
} as const;

/**
 * Variables the platform sets itself, never app settings: App Service sets
 * WEBSITE_AUTH_ENABLED=True when its authentication runs in front of the app.
 */
export const PLATFORM_ENV = {
  appServiceAuthentication: 'WEBSITE_AUTH_ENABLED',
} as const;

/** Azure Storage queue names: 3-63 lowercase letters, digits and single dashes. */
const queueName = z
  .string()
  .regex(/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/, 'must be a storage queue name')
  .refine((name) => name.length <= 56, 'must leave room for the "-poison" suffix (56 characters)');

/**
 * Reads and validates the configuration once at start (DESIGN invariant 6). Every problem
 * is reported together, each naming the setting and, for connector settings, the
 * connector. Secret values never appear in the message. Each connector's settings are
 * validated by the schema of its kind, from `kinds` (the connector kind registry's).
 *
 * @example
 * const config = loadConfig(process.env, connectorSettingsKinds());
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  kinds: ConnectorSettingsKinds,
): AppConfig {
  const problems: string[] = [];
  const connectors = parseConnectorSettings(
    parseJson<unknown>(env[ENV.connectors], ENV.connectors, problems, []),
    kinds,
    problems,
  );
  const provider = env[ENV.secretStore] ?? 'local';
  const secretStoreInput =
    provider === 'keyvault'
      ? { provider, vaultUrl: env[ENV.vaultUrl] }
      : { provider, values: parseJson(env[ENV.localSecrets], ENV.localSecrets, problems, {}) };
  const secretStore = secretStoreSchema.safeParse(secretStoreInput);
  if (!secretStore.success) {
    for (const issue of secretStore.error.issues) {
      const setting =
        issue.path[0] === 'vaultUrl'
          ? ENV.vaultUrl
          : issue.path[0] === 'values'
            ? ENV.localSecrets
            : ENV.secretStore;
      // Only the setting is named: LOCAL_SECRETS holds values.
      problems.push(`setting ${setting}: ${issue.message}`);
    }
  }
  const logLevel = z
    .enum(['debug', 'info', 'warn', 'error'])
    .default('info')
    .safeParse(env[ENV.logLevel] || undefined);
  if (!logLevel.success)
    problems.push(`setting ${ENV.logLevel}: must be debug, info, warn or error`);

  const secretCacheMs = readInt(env, ENV.secretCacheSeconds, 300, 0, 86_400, problems) * 1000;
  const bulkQueue = queueName
    .default('provisioning-requests')
    .safeParse(env[ENV.bulkQueueName] || undefined);
  if (!bulkQueue.success)
    problems.push(`setting ${ENV.bulkQueueName}: ${bulkQueue.error.issues[0]?.message}`);
  const localHost = {
    port: readInt(env, ENV.localHostPort, 7071, 0, 65_535, problems),
    apiKey: env[ENV.localHostApiKey] || undefined,
  };
  if (localHost.apiKey !== undefined && localHost.apiKey.length < 16) {
    problems.push(`setting ${ENV.localHostApiKey}: must be at least 16 characters`);
  }
  const telemetry = readTelemetrySettings(env, problems);
  const writeIntentRetentionDays = readInt(
    env,
    ENV.writeIntentRetentionDays,
    WRITE_INTENT_RETENTION.defaultDays,
    1,
    WRITE_INTENT_RETENTION.maxDays,
    problems,
  );
  for (const connector of connectors) {
    const why = retentionTooShort(writeIntentRetentionDays, connector.quarantine.maxHoldHours);
    if (why !== undefined) {
      problems.push(
        `setting ${ENV.writeIntentRetentionDays}: connector "${connector.name}": ${why}`,
      );
    }
  }

  if (problems.length > 0 || !secretStore.success || !logLevel.success || !bulkQueue.success) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `invalid configuration:\n- ${problems.join('\n- ')}`,
      { details: { problems } },
    );
  }
  return {
    connectors,
    secretStore: secretStore.data,
    secretCacheMs,
    storage: readStorage(env),
    bulkQueueName: bulkQueue.data,
    logLevel: logLevel.data,
    localHost,
    appServiceAuthentication: env[PLATFORM_ENV.appServiceAuthentication]?.toLowerCase() === 'true',
    telemetry,
    writeIntentRetentionDays,
  };
}

/** As the Functions host reads a connection: the plain setting first, else its identity-based parts. */
function readStorage(env: Record<string, string | undefined>): StorageConnection | undefined {
  const connectionString = env[ENV.storageConnectionString];
  if (connectionString !== undefined && connectionString !== '') {
    return { kind: 'connectionString', connectionString };
  }
  const accountName = env[ENV.storageAccountName];
  if (accountName !== undefined && accountName !== '') {
    const clientId = env[ENV.storageClientId];
    return { kind: 'identity', accountName, ...(clientId ? { clientId } : {}) };
  }
  return undefined;
}

function readInt(
  env: Record<string, string | undefined>,
  setting: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const value = env[setting];
  if (value === undefined || value.trim() === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    problems.push(`setting ${setting}: must be a whole number from ${min} to ${max}`);
    return fallback;
  }
  return parsed;
}

/**
 * Validates a list of connector settings, each by the schema of its kind, then the
 * connectors of each kind together (settings that must agree); each problem names the
 * connector (by name, or by position when the name itself is missing) and the setting's path.
 */
export function parseConnectorSettings(
  input: unknown,
  kinds: ConnectorSettingsKinds,
  problems: string[],
): ConnectorSettings[] {
  if (!Array.isArray(input)) {
    problems.push(`setting ${ENV.connectors}: must be a JSON array of connector settings`);
    return [];
  }
  const connectors: ConnectorSettings[] = [];
  input.forEach((raw: unknown, index) => {
    const label = connectorLabel(raw, index);
    const kind =
      typeof raw === 'object' && raw !== null ? (raw as { kind?: unknown }).kind : undefined;
    const schema = typeof kind === 'string' ? kinds.get(kind)?.schema : undefined;
    if (schema === undefined) {
      const known = [...kinds.keys()].join(', ') || '(none)';
      problems.push(
        `connector ${label}: setting "kind": ${typeof kind === 'string' ? `unknown kind "${kind}"` : 'missing'}; known: ${known}`,
      );
      return;
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.length === 0 ? '(whole entry)' : issue.path.join('.');
        problems.push(`connector ${label}: setting "${path}": ${issue.message}`);
      }
      return;
    }
    const unknown = unknownSettings(raw, parsed.data);
    if (unknown.length > 0) {
      for (const path of unknown) {
        problems.push(
          `connector ${label}: setting "${path}": not a setting of a ${parsed.data.kind} connector (misspelt? it would be ignored, and its default used instead)`,
        );
      }
      return;
    }
    if (connectors.some((existing) => existing.name === parsed.data.name)) {
      problems.push(`connector ${label}: setting "name": the name is used by another connector`);
      return;
    }
    connectors.push(parsed.data);
  });
  for (const [kind, { conflicts }] of kinds) {
    const ofKind = connectors.filter((connector) => connector.kind === kind);
    if (ofKind.length > 1) problems.push(...conflicts(ofKind));
  }
  return connectors;
}

/**
 * The paths of the settings an operator wrote that the schema dropped: a misspelt name
 * (`reconcileSchedul`, `memberVal`) would otherwise be ignored without a word and its default
 * used (DESIGN invariant 6), and a value put where a secret's name belongs (`auth.token`) kept
 * in the app settings. Compared by key, object by object, with what the schema kept; only the
 * path is named, never the value.
 *
 * @example
 * unknownSettings({ name: 'a', memberVal: 'scimId' }, { name: 'a', memberValue: 'accountId' }); // ['memberVal']
 */
export function unknownSettings(raw: unknown, parsed: unknown, prefix = ''): string[] {
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return [];
  return Object.entries(raw).flatMap(([key, value]) => {
    const path = `${prefix}${key}`;
    if (!Object.hasOwn(parsed, key)) return [path];
    return unknownSettings(value, parsed[key], `${path}.`);
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function connectorLabel(raw: unknown, index: number): string {
  const name =
    typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? `"${name}"` : `#${index + 1}`;
}

function parseJson<T>(value: string | undefined, setting: string, problems: string[], empty: T): T {
  if (value === undefined || value.trim() === '') return empty;
  try {
    return JSON.parse(value) as T;
  } catch {
    problems.push(`setting ${setting}: is not valid JSON`);
    return empty;
  }
}
