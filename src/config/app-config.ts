import { z } from 'zod';
import { ProvisioningError } from '../domain/errors';
import { connectorSettingsSchema, type ConnectorSettings } from './connector-settings';

const secretStoreSchema = z.discriminatedUnion('provider', [
  z.object({
    provider: z.literal('local'),
    /** Development only: secret name -> value. Production uses Key Vault. */
    values: z.record(z.string(), z.string()).default({}),
  }),
  z.object({ provider: z.literal('keyvault'), vaultUrl: z.url({ protocol: /^https$/ }) }),
]);

export interface AppConfig {
  connectors: ConnectorSettings[];
  secretStore: z.output<typeof secretStoreSchema>;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** The environment variables the service reads, and nothing else (DESIGN: src/config). */
export const ENV = {
  connectors: 'PROVISIONING_CONNECTORS',
  secretStore: 'SECRET_STORE',
  vaultUrl: 'KEY_VAULT_URL',
  localSecrets: 'LOCAL_SECRETS',
  logLevel: 'LOG_LEVEL',
} as const;

/**
 * Reads and validates the configuration once at start (DESIGN invariant 6). Every problem
 * is reported together, each naming the setting and, for connector settings, the
 * connector. Secret values never appear in the message.
 *
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const problems: string[] = [];
  const connectors = parseConnectors(env[ENV.connectors], problems);
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

  if (problems.length > 0 || !secretStore.success || !logLevel.success) {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `invalid configuration:\n- ${problems.join('\n- ')}`,
      { details: { problems } },
    );
  }
  return { connectors, secretStore: secretStore.data, logLevel: logLevel.data };
}

/**
 * Validates a list of connector settings; each problem names the connector (by name, or by
 * position when the name itself is missing) and the setting's path.
 */
export function parseConnectorSettings(input: unknown, problems: string[]): ConnectorSettings[] {
  if (!Array.isArray(input)) {
    problems.push(`setting ${ENV.connectors}: must be a JSON array of connector settings`);
    return [];
  }
  const connectors: ConnectorSettings[] = [];
  input.forEach((raw: unknown, index) => {
    const label = connectorLabel(raw, index);
    const parsed = connectorSettingsSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.length === 0 ? '(whole entry)' : issue.path.join('.');
        problems.push(`connector ${label}: setting "${path}": ${issue.message}`);
      }
      return;
    }
    if (connectors.some((existing) => existing.name === parsed.data.name)) {
      problems.push(`connector ${label}: setting "name": the name is used by another connector`);
      return;
    }
    connectors.push(parsed.data);
  });
  return connectors;
}

function parseConnectors(value: string | undefined, problems: string[]): ConnectorSettings[] {
  const input = parseJson<unknown>(value, ENV.connectors, problems, []);
  return parseConnectorSettings(input, problems);
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

/** The configuration of this process, read once from its environment. */
let processConfig: AppConfig | undefined;
export function processConfiguration(): AppConfig {
  processConfig ??= loadConfig(process.env);
  return processConfig;
}
