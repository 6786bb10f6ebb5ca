import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { onlyResource, resourcesOfType } from './arm-snapshot';
import { describeCompiled, repoRoot, template, type ArmTemplate } from './compiled-template';

/**
 * What a secret looks like in a template: storage keys and key-bearing connection strings, SAS
 * tokens, the instrumentation key, ARM list* calls (they return keys), Key Vault reads and writes.
 * The service takes no secret through the template: the operator enters secrets into Key Vault.
 */
const SECRET_SHAPES: { pattern: RegExp; what: string }[] = [
  { pattern: /AccountKey=/i, what: 'a storage account key' },
  { pattern: /DefaultEndpointsProtocol=/i, what: 'a storage connection string' },
  { pattern: /SharedAccessSignature|[?&]sig=/i, what: 'a SAS token' },
  { pattern: /InstrumentationKey=/i, what: 'an instrumentation key' },
  {
    pattern: /\blist(Keys|Secrets|AccountSas|ServiceSas|ConnectionStrings|Credentials?)\s*\(/i,
    what: 'an ARM list* call',
  },
  { pattern: /getSecret\(/, what: 'a Key Vault secret read into the deployment' },
  { pattern: /Microsoft\.KeyVault\/vaults\/secrets/i, what: 'a secret written by the template' },
];

/** Every secret shape found, as "<file>: <what>". */
function secretFindings(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    SECRET_SHAPES.filter(({ pattern }) => pattern.test(text)).map(({ what }) => `${path}: ${what}`),
  );
}

/** The infra sources and azure.yaml, by path. */
function sources(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(bicep|bicepparam|json)$/.test(entry.name)) {
        files[relative(repoRoot, path)] = readFileSync(path, 'utf8');
      }
    }
  };
  walk(join(repoRoot, 'infra'));
  files['azure.yaml'] = readFileSync(join(repoRoot, 'azure.yaml'), 'utf8');
  return files;
}

/** Parameters and outputs of secure type, in the template and in every module. */
function secureDeclarations(armTemplate: ArmTemplate, where = 'main'): string[] {
  const secure = (type: string): boolean => /^secure(string|object)$/i.test(type);
  return [
    ...Object.entries(armTemplate.parameters ?? {})
      .filter(([, p]) => secure(p.type))
      .map(([name]) => `${where}: parameter ${name}`),
    ...Object.entries(armTemplate.outputs ?? {})
      .filter(([, o]) => secure(o.type))
      .map(([name]) => `${where}: output ${name}`),
    ...armTemplate.resources
      .filter((r) => r.type === 'Microsoft.Resources/deployments')
      .flatMap((r) => secureDeclarations(r.properties!.template!, r.name)),
  ];
}

describeCompiled('no secret in the template', () => {
  it('holds no key, connection string, SAS, list* call or secret, compiled or in the sources', () => {
    const { texts } = template();
    const files = { ...texts, ...sources() };
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'main.json',
        'main.snapshot.json',
        'infra/main.bicepparam',
        'azure.yaml',
      ]),
    );
    expect(secretFindings(files)).toEqual([]);
  });

  it('flags a storage connection string built from the account key', () => {
    const leaky = {
      'leaky.json':
        "[format('DefaultEndpointsProtocol=https;AccountName={0};AccountKey={1}', parameters('n'), listKeys(resourceId('Microsoft.Storage/storageAccounts', parameters('n')), '2025-06-01').keys[0].value)]",
    };
    expect(secretFindings(leaky)).toEqual([
      'leaky.json: a storage account key',
      'leaky.json: a storage connection string',
      'leaky.json: an ARM list* call',
    ]);
  });

  it('takes and gives no secure parameter or output, in main or any module', () => {
    const { template: armTemplate } = template();
    expect(
      armTemplate.resources.filter((r) => r.type === 'Microsoft.Resources/deployments').length,
    ).toBe(9);
    expect(secureDeclarations(armTemplate)).toEqual([]);
  });

  it('creates no Key Vault secret and outputs names, URLs and prompting commands only', () => {
    const { snapshot } = template();
    expect(resourcesOfType(snapshot, 'Microsoft.KeyVault/vaults/secrets')).toEqual([]);
    expect(Object.keys(snapshot.outputs).sort()).toEqual([
      'AZURE_FUNCTION_APP_NAME',
      'AZURE_LOCATION',
      'AZURE_RESOURCE_GROUP',
      'AZURE_TENANT_ID',
      'CONNECTOR_SECRET_COMMANDS',
      'CONSOLE_URL',
      'FUNCTION_APP_URL',
      'KEY_VAULT_NAME',
    ]);
  });
});

describeCompiled('identity-only access to the data stores', () => {
  it('turns shared-key (and anonymous) access off on the storage account', () => {
    const storage = onlyResource(template().snapshot, 'Microsoft.Storage/storageAccounts');
    expect(storage.properties).toMatchObject({
      allowSharedKeyAccess: false,
      defaultToOAuthAuthentication: true,
      allowBlobPublicAccess: false,
      minimumTlsVersion: 'TLS1_2',
      supportsHttpsTrafficOnly: true,
    });
  });

  it('keeps Key Vault in RBAC mode with purge protection and no access policies', () => {
    const vault = onlyResource(template().snapshot, 'Microsoft.KeyVault/vaults');
    expect(vault.properties).toMatchObject({
      enableRbacAuthorization: true,
      enableSoftDelete: true,
      enablePurgeProtection: true,
    });
    expect(vault.properties).not.toHaveProperty('accessPolicies');
  });
});
