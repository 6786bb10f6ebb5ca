import { describe, expect, it } from 'vitest';
import { bicepFiles, readRepoFile, resourceDeclarations, type SourceFile } from './bicep-text';

/**
 * Patterns that mean a secret is in (or produced by) the templates: storage keys and key-bearing
 * connection strings, SAS tokens, ARM list* functions that return keys, and secure parameters
 * (the service takes no secret through Bicep: the operator enters secrets into Key Vault).
 */
const forbidden: { pattern: RegExp; why: string }[] = [
  { pattern: /AccountKey=/i, why: 'storage account key in a connection string' },
  { pattern: /DefaultEndpointsProtocol=/i, why: 'storage connection string' },
  { pattern: /SharedAccessSignature|[?&]sig=/i, why: 'SAS token' },
  {
    pattern: /\blist(Keys|Secrets|AccountSas|ServiceSas|ConnectionStrings)\s*\(/i,
    why: 'ARM list* call',
  },
  { pattern: /@secure\(\)/, why: 'secure parameter: secrets never pass through Bicep' },
  { pattern: /Microsoft\.KeyVault\/vaults\/secrets/i, why: 'secret value written by the template' },
  { pattern: /getSecret\(/, why: 'Key Vault secret read into the template' },
];

function violations(files: SourceFile[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    for (const { pattern, why } of forbidden) {
      if (pattern.test(file.text)) found.push(`${file.path}: ${why}`);
    }
  }
  return found;
}

const infra: SourceFile[] = [
  ...bicepFiles(),
  { path: 'infra/main.parameters.json', text: readRepoFile('infra/main.parameters.json') },
  { path: 'azure.yaml', text: readRepoFile('azure.yaml') },
];

function declaration(type: string) {
  const all = bicepFiles().flatMap((f) => resourceDeclarations(f.text));
  const found = all.find((r) => r.type === type && !r.existing);
  if (found === undefined) throw new Error(`no ${type} declared`);
  return found;
}

describe('no secret in the infra templates', () => {
  it('holds no key, connection string, SAS, list* call or secure parameter', () => {
    expect(infra.map((f) => f.path)).toContain('infra/main.bicep');
    expect(violations(infra)).toEqual([]);
  });

  it('flags a storage connection string built from the account key', () => {
    const leaky: SourceFile = {
      path: 'leaky.bicep',
      text: "var c = 'DefaultEndpointsProtocol=https;AccountName=${s.name};AccountKey=${s.listKeys().keys[0].value}'",
    };
    expect(violations([leaky])).toEqual([
      'leaky.bicep: storage account key in a connection string',
      'leaky.bicep: storage connection string',
      'leaky.bicep: ARM list* call',
    ]);
  });

  it('outputs only names, URLs and commands that prompt for the value', () => {
    const outputs = readRepoFile('infra/main.bicep')
      .split('\n')
      .filter((line) => line.startsWith('output '));
    expect(outputs.map((line) => line.split(' ')[1])).toEqual([
      'AZURE_LOCATION',
      'AZURE_TENANT_ID',
      'AZURE_RESOURCE_GROUP',
      'AZURE_FUNCTION_APP_NAME',
      'FUNCTION_APP_URL',
      'KEY_VAULT_NAME',
      'CONNECTOR_SECRET_COMMANDS',
    ]);
    const commands = readRepoFile('infra/main.bicep').slice(
      readRepoFile('infra/main.bicep').indexOf('output CONNECTOR_SECRET_COMMANDS'),
    );
    expect(commands).toContain('read -rs SECRET_VALUE');
    expect(commands).toContain('az keyvault secret set --vault-name ${keyVaultName}');
  });
});

describe('identity-only access to the data stores', () => {
  it('turns shared-key access off on the storage account', () => {
    const body = declaration('Microsoft.Storage/storageAccounts').body;
    expect(body).toMatch(/allowSharedKeyAccess: false/);
    expect(body).toMatch(/allowBlobPublicAccess: false/);
  });

  it('keeps Key Vault in RBAC mode with purge protection', () => {
    const body = declaration('Microsoft.KeyVault/vaults').body;
    expect(body).toMatch(/enableRbacAuthorization: true/);
    expect(body).toMatch(/enablePurgeProtection: true/);
    expect(body).not.toMatch(/accessPolicies/);
  });

  it('accepts telemetry only with an Entra ID token', () => {
    const body = declaration('Microsoft.Insights/components').body;
    expect(body).toMatch(/DisableLocalAuth: true/);
    expect(body).toMatch(/WorkspaceResourceId: logAnalytics\.id/);
    expect(readRepoFile('infra/app/function-app.bicep')).toMatch(
      /APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=\$\{identityClientId\};Authorization=AAD'/,
    );
  });

  it('deploys the package with the managed identity, not a key', () => {
    const body = declaration('Microsoft.Web/sites').body;
    expect(body).toMatch(/type: 'UserAssignedIdentity'/);
    expect(body).not.toMatch(/StorageAccountConnectionString/i);
  });
});
