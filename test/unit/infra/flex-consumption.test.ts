import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  appSettings,
  moduleDeployment,
  moduleResources,
  onlyResource,
  referenceTo,
  siteIdentity,
} from './arm-snapshot';
import { describeCompiled, repoRoot, template } from './compiled-template';
import { everyReleaseOfMajorSatisfies } from './node-engines';

const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');
/** The worker's heap growth: the template's, and the local host's and the bench's (README, "Performance"). */
const HEAP_ARGUMENT = '--heap-growing-percent=100';

/** The Node.js major a README names for the deployed app ("Flex Consumption ... Node 22"). */
function readmeNodeMajor(path: string): string | undefined {
  return /Flex Consumption[^\n]*?Node(?:\.js)? (\d+)/.exec(read(path))?.[1];
}

describeCompiled('Flex Consumption in the compiled template', () => {
  it('runs the site on a Flex Consumption plan (FC1) on Linux', () => {
    const { snapshot } = template();
    const plan = onlyResource(snapshot, 'Microsoft.Web/serverfarms');
    const site = onlyResource(snapshot, 'Microsoft.Web/sites');
    expect(plan.sku).toEqual({ name: 'FC1', tier: 'FlexConsumption' });
    expect(plan.properties).toMatchObject({ reserved: true });
    expect(site.kind).toBe('functionapp,linux');
    expect(site.properties).toMatchObject({ serverFarmId: plan.id, httpsOnly: true });
  });

  it('runs the Node.js major that package.json engines allows in full and both READMEs name', () => {
    const runtime = (
      onlyResource(template().snapshot, 'Microsoft.Web/sites').properties as {
        functionAppConfig: { runtime: { name: string; version: string } };
      }
    ).functionAppConfig.runtime;
    expect(runtime.name).toBe('node');
    expect(runtime.version).toMatch(/^\d+$/); // a major: the platform keeps it on the newest patch
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines;
    expect(everyReleaseOfMajorSatisfies(engines.node, Number(runtime.version))).toBe(true);
    expect([readmeNodeMajor('README.md'), readmeNodeMajor('infra/README.md')]).toEqual([
      runtime.version,
      runtime.version,
    ]);
  });

  it("gives Node 22's worker AsyncLocalStorage without async hooks, and no argument on another major", () => {
    const { snapshot } = template();
    const site = onlyResource(snapshot, 'Microsoft.Web/sites');
    const { version } = (site.properties as { functionAppConfig: { runtime: { version: string } } })
      .functionAppConfig.runtime;
    const argument = appSettings(snapshot).languageWorkers__node__arguments;
    // Node 24 refuses the flag ("bad option"), Node 20 too: it is given on 22 alone.
    expect(argument).toBe(
      version === '22' ? `${HEAP_ARGUMENT} --experimental-async-context-frame` : HEAP_ARGUMENT,
    );
    expect(read('infra/app/function-app.bicep')).toMatch(
      /languageWorkers__node__arguments: nodeVersion == '22'\s*\? '\$\{workerHeapArgument\} --experimental-async-context-frame'\s*: workerHeapArgument/,
    );
  });

  it('runs the service locally and in the bench with the heap setting the worker gets in Azure', () => {
    const { snapshot } = template();
    expect(appSettings(snapshot).languageWorkers__node__arguments).toContain(HEAP_ARGUMENT);
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toContain(`node ${HEAP_ARGUMENT} dist/src/runtime/local-host/main.js`);
    expect(scripts.bench).toContain(`node ${HEAP_ARGUMENT} dist/test/bench/main.js`);
  });

  it('compares a major line with the engines range forms', () => {
    expect(everyReleaseOfMajorSatisfies('>=20.19', 22)).toBe(true);
    expect(everyReleaseOfMajorSatisfies('>=20.19', 20)).toBe(false); // 20.0.0 < 20.19
    expect(everyReleaseOfMajorSatisfies('>=20', 20)).toBe(true);
    expect(everyReleaseOfMajorSatisfies('>=20 <23', 22)).toBe(true);
    expect(everyReleaseOfMajorSatisfies('>=20 <22.5', 22)).toBe(false);
    expect(everyReleaseOfMajorSatisfies('^22', 22)).toBe(true);
    expect(everyReleaseOfMajorSatisfies('^22.1.0', 22)).toBe(false);
    expect(everyReleaseOfMajorSatisfies('22.x', 24)).toBe(false);
    expect(() => everyReleaseOfMajorSatisfies('20 || 22', 22)).toThrow('unsupported engines');
  });

  it('takes the maximum instance count and the instance memory from parameters', () => {
    const { template: armTemplate, snapshot } = template();
    expect(armTemplate.parameters?.maximumInstanceCount).toMatchObject({
      type: 'int',
      defaultValue: 100,
      minValue: 40,
      maxValue: 1000,
    });
    expect(armTemplate.parameters?.instanceMemoryMB).toMatchObject({
      type: 'int',
      defaultValue: 2048,
      allowedValues: [2048, 4096],
    });
    // Wired through the module, not written as literals on the way.
    const module = moduleDeployment(armTemplate, 'functionApp').properties!;
    const [site] = moduleResources(armTemplate, 'functionApp', 'Microsoft.Web/sites');
    const scale = (site?.properties as { functionAppConfig: { scaleAndConcurrency: unknown } })
      .functionAppConfig.scaleAndConcurrency;
    for (const name of ['maximumInstanceCount', 'instanceMemoryMB']) {
      expect(module.parameters?.[name]?.value).toBe(`[parameters('${name}')]`);
      expect(scale).toHaveProperty(name, `[parameters('${name}')]`);
    }
    const deployed = onlyResource(snapshot, 'Microsoft.Web/sites').properties as {
      functionAppConfig: { scaleAndConcurrency: unknown };
    };
    expect(deployed.functionAppConfig.scaleAndConcurrency).toEqual({
      maximumInstanceCount: 100,
      instanceMemoryMB: 2048,
    });
  });

  it('deploys the package from its blob container with the identity; no runtime app settings', () => {
    const { snapshot } = template();
    const storage = onlyResource(snapshot, 'Microsoft.Storage/storageAccounts');
    const container = onlyResource(
      snapshot,
      'Microsoft.Storage/storageAccounts/blobServices/containers',
    );
    const site = onlyResource(snapshot, 'Microsoft.Web/sites').properties as {
      functionAppConfig: { deployment: { storage: unknown } };
    };
    expect(site.functionAppConfig.deployment.storage).toEqual({
      type: 'blobContainer',
      value: `[format('{0}{1}', ${referenceTo(storage, 'primaryEndpoints.blob')}, '${container.name.split('/').at(-1)}')]`,
      authentication: {
        type: 'UserAssignedIdentity',
        userAssignedIdentityResourceId: siteIdentity(snapshot).id,
      },
    });
    // Flex Consumption refuses these: the runtime comes from functionAppConfig.
    const names = Object.keys(appSettings(snapshot));
    for (const refused of [
      'FUNCTIONS_WORKER_RUNTIME',
      'FUNCTIONS_EXTENSION_VERSION',
      'WEBSITE_RUN_FROM_PACKAGE',
      'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
      'WEBSITE_CONTENTSHARE',
    ]) {
      expect(names).not.toContain(refused);
    }
  });

  it('sends telemetry to Application Insights by connection string, signed in with the identity', () => {
    const { snapshot } = template();
    const settings = appSettings(snapshot);
    const component = onlyResource(snapshot, 'Microsoft.Insights/components');
    const workspace = onlyResource(snapshot, 'Microsoft.OperationalInsights/workspaces');
    expect(settings.APPLICATIONINSIGHTS_CONNECTION_STRING).toBe(
      `[${referenceTo(component, 'ConnectionString')}]`,
    );
    expect(settings.APPLICATIONINSIGHTS_AUTHENTICATION_STRING).toBe(
      `[format('ClientId={0};Authorization=AAD', ${referenceTo(siteIdentity(snapshot), 'clientId')})]`,
    );
    expect(settings).not.toHaveProperty('APPINSIGHTS_INSTRUMENTATIONKEY');
    // Local (key) authentication off: only an Entra token (the identity's role) gets in.
    expect(component.properties).toMatchObject({
      DisableLocalAuth: true,
      WorkspaceResourceId: workspace.id,
      IngestionMode: 'LogAnalytics',
    });
  });
});
