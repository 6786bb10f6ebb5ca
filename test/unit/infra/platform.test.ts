import { describe, expect, it } from 'vitest';
import { bicepFiles, majorSatisfies, readRepoFile, resourceDeclarations } from './bicep-text';

/**
 * Resource types and API versions that were checked against the Azure template reference
 * (learn.microsoft.com/azure/templates) and the azd reference samples
 * (Azure-Samples/durable-functions-quickstart-typescript-azd,
 * Azure-Samples/azure-functions-flex-consumption-samples). A new type or version must be checked
 * the same way before it is added here.
 */
const VERIFIED_API_VERSIONS: Record<string, string> = {
  'Microsoft.Resources/resourceGroups': '2021-04-01',
  'Microsoft.ManagedIdentity/userAssignedIdentities': '2023-01-31',
  'Microsoft.Storage/storageAccounts': '2023-05-01',
  'Microsoft.Storage/storageAccounts/blobServices': '2023-05-01',
  'Microsoft.Storage/storageAccounts/blobServices/containers': '2023-05-01',
  'Microsoft.Storage/storageAccounts/queueServices': '2023-05-01',
  'Microsoft.Storage/storageAccounts/queueServices/queues': '2023-05-01',
  'Microsoft.Storage/storageAccounts/tableServices': '2023-05-01',
  'Microsoft.Storage/storageAccounts/tableServices/tables': '2023-05-01',
  'Microsoft.OperationalInsights/workspaces': '2023-09-01',
  'Microsoft.Insights/components': '2020-02-02',
  'Microsoft.KeyVault/vaults': '2023-07-01',
  'Microsoft.Web/serverfarms': '2024-04-01',
  'Microsoft.Web/sites': '2024-04-01',
  'Microsoft.Web/sites/config': '2024-04-01',
  'Microsoft.Authorization/roleAssignments': '2022-04-01',
};

const declarations = bicepFiles().flatMap((file) =>
  resourceDeclarations(file.text).map((r) => ({ ...r, path: file.path })),
);
const functionApp = readRepoFile('infra/app/function-app.bicep');
const mainBicep = readRepoFile('infra/main.bicep');

describe('resource types and API versions', () => {
  it('use only the verified type@version pairs', () => {
    expect(declarations.length).toBeGreaterThan(10);
    const unverified = declarations
      .filter((r) => VERIFIED_API_VERSIONS[r.type] !== r.apiVersion)
      .map((r) => `${r.path}: ${r.type}@${r.apiVersion}`);
    expect(unverified).toEqual([]);
  });

  it('declare every module file that main.bicep references', () => {
    const modules = [...mainBicep.matchAll(/^module \w+ '([^']+)'/gm)].map((m) => m[1]);
    const files = new Set(bicepFiles().map((f) => f.path));
    expect(modules.length).toBeGreaterThanOrEqual(5);
    for (const module of modules) expect(files).toContain(`infra/${module}`);
  });
});

describe('Flex Consumption on Node.js', () => {
  it('runs on the FC1 Flex Consumption plan, Linux', () => {
    const plan = declarations.find((r) => r.type === 'Microsoft.Web/serverfarms');
    expect(plan?.body).toMatch(/name: 'FC1'\s*\n\s*tier: 'FlexConsumption'/);
    expect(plan?.body).toMatch(/reserved: true/);
    const site = declarations.find((r) => r.type === 'Microsoft.Web/sites' && !r.existing);
    expect(site?.body).toMatch(/kind: 'functionapp,linux'/);
    expect(site?.body).toMatch(/runtime: \{\s*\n\s*name: 'node'\s*\n\s*version: nodeVersion/);
  });

  it('picks a Node.js major that satisfies package.json engines', () => {
    const engines = (JSON.parse(readRepoFile('package.json')) as { engines: { node: string } })
      .engines.node;
    const major = Number(/^var nodeVersion = '(\d+)'$/m.exec(mainBicep)?.[1]);
    expect(major).toBe(22);
    expect(majorSatisfies(engines, major)).toBe(true);
    expect(functionApp).toMatch(/^param nodeVersion string$/m);
    expect(mainBicep).toMatch(/^\s*nodeVersion: nodeVersion$/m);
  });

  it('compares majors against the engines range forms in use', () => {
    expect(majorSatisfies('>=20.19', 18)).toBe(false);
    expect(majorSatisfies('>=20.19', 20)).toBe(true);
    expect(majorSatisfies('^22.1.0', 20)).toBe(false);
    expect(majorSatisfies('22.x', 22)).toBe(true);
    expect(() => majorSatisfies('>=20 <23', 22)).toThrow('unsupported engines range');
  });

  it('tags the site as the service azure.yaml deploys', () => {
    const azureYaml = readRepoFile('azure.yaml');
    expect(azureYaml).toMatch(/^services:\n\s+api:\n(\s+.+\n)*?\s+host: function$/m);
    expect(azureYaml).toMatch(/^\s+language: ts$/m);
    expect(functionApp).toMatch(/'azd-service-name': 'api'/);
  });
});
