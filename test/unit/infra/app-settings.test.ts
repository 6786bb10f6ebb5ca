import { describe, expect, it } from 'vitest';
import { parseConnectorSettings } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { SETTINGS } from '../../../src/config/settings-catalogue';
import { blockAfter, readRepoFile, topLevelKeys } from './bicep-text';

const functionApp = readRepoFile('infra/app/function-app.bicep');
const mainBicep = readRepoFile('infra/main.bicep');
const parameters = JSON.parse(readRepoFile('infra/main.parameters.json')) as {
  parameters: Record<string, { value: unknown }>;
};

function appSettingNames(bicep: string): string[] {
  return topLevelKeys(blockAfter(bicep, 'var appSettings ='));
}

function missingAzureSettings(bicep: string): string[] {
  const set = new Set(appSettingNames(bicep));
  return SETTINGS.filter((s) => s.need === 'azure' && !set.has(s.name)).map((s) => s.name);
}

describe('app settings in infra/app/function-app.bicep', () => {
  it('sets every setting the settings catalogue marks as needed in Azure', () => {
    expect(SETTINGS.some((s) => s.need === 'azure')).toBe(true);
    expect(missingAzureSettings(functionApp)).toEqual([]);
  });

  it('reports a required setting that is dropped from the template', () => {
    const withoutVaultUrl = functionApp.replace(/^\s*KEY_VAULT_URL:.*$/m, '');
    expect(missingAzureSettings(withoutVaultUrl)).toEqual(['KEY_VAULT_URL']);
  });

  it('sets no setting meant for the local host only (LOCAL_SECRETS would hold secret values)', () => {
    const local = SETTINGS.filter((s) => s.need === 'local').map((s) => s.name);
    expect(appSettingNames(functionApp).filter((name) => local.includes(name))).toEqual([]);
  });

  it('leaves the runtime to functionAppConfig, as Flex Consumption requires', () => {
    const names = appSettingNames(functionApp);
    expect(names).not.toContain('FUNCTIONS_WORKER_RUNTIME');
    expect(names).not.toContain('FUNCTIONS_EXTENSION_VERSION');
    expect(names).not.toContain('WEBSITE_RUN_FROM_PACKAGE');
  });

  it('applies exactly that object as the site app settings, with the store in Key Vault', () => {
    expect(functionApp).toMatch(/name: 'appsettings'\s*\n\s*properties: appSettings\s*\n/);
    expect(functionApp).toMatch(/^\s*SECRET_STORE: 'keyvault'$/m);
    expect(functionApp).toMatch(/^\s*AzureWebJobsStorage__credential: 'managedidentity'$/m);
  });

  it('generates PROVISIONING_CONNECTORS from the connectors parameter', () => {
    expect(functionApp).toMatch(/^\s*PROVISIONING_CONNECTORS: string\(connectors\)$/m);
    expect(mainBicep).toMatch(/^\s*connectors: connectors$/m);
  });
});

describe('example connectors in infra/main.parameters.json', () => {
  const connectors = parameters.parameters.connectors?.value;

  it('hold one connector of each kind that the app accepts, each with an import schedule', () => {
    expect(Array.isArray(connectors)).toBe(true);
    const problems: string[] = [];
    const parsed = parseConnectorSettings(connectors, connectorSettingsKinds(), problems);
    expect(problems).toEqual([]);
    expect(parsed.map((c) => c.kind).sort()).toEqual(['graph', 'scim']);
    for (const connector of parsed) expect(connector.importSchedule).toMatch(/\S/);
  });

  it('name secrets and never carry a credential field', () => {
    const allowed = new Set(['tokenSecret', 'passwordSecret', 'clientSecretName']);
    const suspicious: string[] = [];
    const visit = (value: unknown, path: string): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, inner] of Object.entries(value)) {
        if (/secret|password|token|credential|key$/i.test(key) && !allowed.has(key)) {
          suspicious.push(`${path}.${key}`);
        }
        visit(inner, `${path}.${key}`);
      }
    };
    visit(connectors, 'connectors');
    expect(suspicious).toEqual([]);
  });
});
