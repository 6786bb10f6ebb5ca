import { expect, it } from 'vitest';
import { loadConfig, parseConnectorSettings } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { SETTINGS } from '../../../src/config/settings-catalogue';
import { assertKeyVaultSecretName } from '../../../src/secrets/key-vault-secret-name';
import {
  appSettings,
  isRuntimeValue,
  onlyResource,
  referenceTo,
  resourcesOfType,
  siteIdentity,
} from './arm-snapshot';
import { describeCompiled, template, type Variant } from './compiled-template';
import { SECRET_NAME_FIELDS, secretNamesIn } from './connector-secrets';
import { DRIFT_EVENTS_QUEUE } from '../../../src/store/drift-events';

/**
 * Settings the Functions host reads itself, not src/config: the only ones the template may set
 * beyond the settings catalogue (src/config/settings-catalogue.ts), which is the source of truth.
 * None today: the app reads the Application Insights pair too (src/config/telemetry-settings.ts).
 */
const HOST_SETTINGS: Record<string, string> = {};

/** The Durable backend a variant of the check deploys (infra parameter durableBackend). */
const BACKEND: Record<Variant, 'scheduler' | 'storage'> = {
  default: 'scheduler',
  'storage-backend': 'storage',
  'entra-sign-in': 'scheduler',
};

/**
 * Settings missing against the catalogue, meant for the local host or the other Durable backend
 * only, or read by nobody.
 */
function settingProblems(names: string[], backend: 'scheduler' | 'storage'): string[] {
  const problems: string[] = [];
  for (const setting of SETTINGS) {
    const set = names.includes(setting.name);
    const otherBackend = setting.durableBackend !== undefined && setting.durableBackend !== backend;
    if (setting.need !== 'local' && !otherBackend && !set)
      problems.push(`missing ${setting.name} (${setting.need})`);
    if (setting.need === 'local' && set) problems.push(`sets ${setting.name}: local host only`);
    if (otherBackend && set) {
      problems.push(`sets ${setting.name}: ${setting.durableBackend} backend only`);
    }
  }
  for (const name of names) {
    if (!SETTINGS.some((s) => s.name === name) && HOST_SETTINGS[name] === undefined) {
      problems.push(`sets ${name}: nothing reads it`);
    }
  }
  return problems;
}

/** Values only the deployment knows, in the shape each setting takes. */
const STAND_INS: Record<string, string> = {
  KEY_VAULT_URL: 'https://stand-in.vault.azure.net/',
  APPLICATIONINSIGHTS_CONNECTION_STRING:
    'InstrumentationKey=00000000-0000-0000-0000-00000000beef;IngestionEndpoint=https://stand-in.in.applicationinsights.azure.com/',
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING:
    'ClientId=00000000-0000-0000-0000-00000000beef;Authorization=AAD',
};

describeCompiled('app settings of the compiled template', () => {
  it.each(['default', 'storage-backend'] as const)(
    'set every setting the code and host read in Azure (the settings catalogue) and nothing else (%s)',
    (variant) => {
      const { snapshot } = template(variant);
      const names = Object.keys(appSettings(snapshot));
      expect(names.length).toBeGreaterThan(5);
      expect(settingProblems(names, BACKEND[variant])).toEqual([]);
    },
  );

  it("would report a missing setting, a local-only one, the other backend's and one nobody reads", () => {
    const names = Object.keys(appSettings(template().snapshot));
    const changed = [
      ...names.filter((name) => name !== 'KEY_VAULT_URL'),
      'AzureWebJobsStorage', // a connection string would win over the identity settings
      'AzureFunctionsJobHost__extensions__durableTask__storageProvider__type',
      'FUNCTIONS_WORKER_RUNTIME',
    ];
    expect(settingProblems(changed, 'scheduler')).toEqual([
      'missing KEY_VAULT_URL (azure)',
      'sets AzureWebJobsStorage: local host only',
      'sets AzureFunctionsJobHost__extensions__durableTask__storageProvider__type: storage backend only',
      'sets FUNCTIONS_WORKER_RUNTIME: nothing reads it',
    ]);
    expect(settingProblems(names, 'storage')).toEqual([
      'sets DURABLE_TASK_SCHEDULER_CONNECTION_STRING: scheduler backend only',
      'missing AzureFunctionsJobHost__extensions__durableTask__storageProvider__type (azure)',
      'missing AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName (azure)',
    ]);
  });

  it("wire each value to the resource it comes from: the app's identity, storage and vault", () => {
    const { snapshot } = template();
    const settings = appSettings(snapshot);
    const identity = siteIdentity(snapshot);
    const storage = onlyResource(snapshot, 'Microsoft.Storage/storageAccounts');
    const vault = onlyResource(snapshot, 'Microsoft.KeyVault/vaults');
    expect(settings).toMatchObject({
      AzureWebJobsStorage__accountName: storage.name,
      AzureWebJobsStorage__credential: 'managedidentity',
      AzureWebJobsStorage__clientId: `[${referenceTo(identity, 'clientId')}]`,
      AZURE_CLIENT_ID: `[${referenceTo(identity, 'clientId')}]`,
      SECRET_STORE: 'keyvault',
      KEY_VAULT_URL: `[${referenceTo(vault, 'vaultUri')}]`,
    });
  });

  it('form a configuration the app accepts, with its bulk queue and connectors in place', () => {
    const { snapshot, parameters } = template();
    const settings = appSettings(snapshot);
    // Values only the deployment knows get stand-ins of the right shape.
    const env = Object.fromEntries(
      Object.entries(settings).map(([name, value]) => [
        name,
        !isRuntimeValue(value)
          ? value
          : (STAND_INS[name] ?? '00000000-0000-0000-0000-00000000beef'),
      ]),
    );
    const config = loadConfig(env, connectorSettingsKinds());
    expect(config.secretStore.provider).toBe('keyvault');
    expect(config.telemetry).toMatchObject({
      managedIdentity: { clientId: '00000000-0000-0000-0000-00000000beef' },
      accountIds: false,
    });
    expect(config.storage).toMatchObject({
      kind: 'identity',
      accountName: onlyResource(snapshot, 'Microsoft.Storage/storageAccounts').name,
    });
    const queues = resourcesOfType(
      snapshot,
      'Microsoft.Storage/storageAccounts/queueServices/queues',
    );
    expect(queues.map((q) => q.name.split('/').at(-1)).sort()).toEqual(
      [config.bulkQueueName, `${config.bulkQueueName}-poison`, DRIFT_EVENTS_QUEUE].sort(),
    );
    expect(JSON.parse(settings.PROVISIONING_CONNECTORS!)).toEqual(
      parameters.parameters.connectors?.value,
    );
    expect(config.connectors.map((c) => c.name)).toEqual(['hr-app', 'entra']);
  });
});

describeCompiled('connectors in infra/main.bicepparam', () => {
  const connectors = (): unknown => template().parameters.parameters.connectors?.value;

  it('hold one connector of each kind that the app accepts, each with an import schedule', () => {
    const problems: string[] = [];
    const parsed = parseConnectorSettings(connectors(), connectorSettingsKinds(), problems);
    expect(problems).toEqual([]);
    expect(parsed.map((c) => c.kind).sort()).toEqual(['graph', 'scim']);
    for (const connector of parsed) expect(connector.importSchedule).toMatch(/\S/);
  });

  it('name secrets as Key Vault secret names and carry no credential field', () => {
    const suspicious: string[] = [];
    const visit = (value: unknown, path: string): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, inner] of Object.entries(value)) {
        if (SECRET_NAME_FIELDS.has(key)) assertKeyVaultSecretName(String(inner));
        else if (/secret|password|token|credential|key$/i.test(key))
          suspicious.push(`${path}.${key}`);
        visit(inner, `${path}.${key}`);
      }
    };
    visit(connectors(), 'connectors');
    expect(suspicious).toEqual([]);
    expect(secretNamesIn(connectors())).toEqual(['hr-app-scim-token', 'entra-client-secret']);
  });
});
