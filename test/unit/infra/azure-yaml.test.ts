import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onlyResource } from './arm-snapshot';
import { describeCompiled, repoRoot, template } from './compiled-template';
import { secretNamesIn } from './connector-secrets';
import { parseYamlSubset, type YamlMap } from './yaml-subset';

const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');
const azureYaml = parseYamlSubset(read('azure.yaml'));
const section = (map: YamlMap, key: string): YamlMap => {
  const value = map[key];
  if (typeof value !== 'object') throw new Error(`azure.yaml: "${key}" is not a mapping`);
  return value;
};
const scalar = (map: YamlMap, key: string): string => {
  const value = map[key];
  if (typeof value !== 'string') throw new Error(`azure.yaml: "${key}" is not a scalar`);
  return value;
};

interface PackageJson {
  main: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
}

describe('azure.yaml', () => {
  it('deploys one service, this package: TypeScript whose main is the compiled functions/', () => {
    const services = section(azureYaml, 'services');
    expect(Object.keys(services)).toEqual(['api']);
    const api = section(services, 'api');
    expect(api).toMatchObject({ host: 'function', language: 'ts' });
    const project = resolve(repoRoot, scalar(api, 'project'));
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as PackageJson;
    expect(pkg.main).toBe('dist/functions/index.js');
    expect(existsSync(join(project, 'functions', 'index.ts'))).toBe(true);
    // language ts: the package is built by tsc, which emits functions/ into dist/functions/.
    expect(pkg.devDependencies).toHaveProperty('typescript');
    expect(pkg.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json$/);
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    expect(build.include).toContain('functions');
  });

  it('provisions the Bicep entry point and parameters file the check compiles', () => {
    const infra = section(azureYaml, 'infra');
    expect(infra).toEqual({ provider: 'bicep', path: 'infra', module: 'main' });
    expect(existsSync(join(repoRoot, 'infra', 'main.bicep'))).toBe(true);
    expect(existsSync(join(repoRoot, 'infra', 'main.bicepparam'))).toBe(true);
    // azd would take a JSON parameters file only when no .bicepparam exists: one source only.
    expect(existsSync(join(repoRoot, 'infra', 'main.parameters.json'))).toBe(false);
  });

  it('reads a YAML mapping and refuses what it cannot read', () => {
    expect(parseYamlSubset('a:\n  b: "x"\n  c: |\n    one\n    two\nd: y # note\n')).toEqual({
      a: { b: 'x', c: 'one\ntwo\n' },
      d: 'y',
    });
    expect(() => parseYamlSubset('services:\n  - api\n')).toThrow('line 2: unsupported YAML');
  });
});

describeCompiled('azure.yaml against the compiled template', () => {
  it('names the service the template tags on the function app', () => {
    const site = onlyResource(template().snapshot, 'Microsoft.Web/sites');
    expect(Object.keys(section(azureYaml, 'services'))).toEqual([site.tags?.['azd-service-name']]);
    expect(site.kind).toMatch(/^functionapp\b/);
  });

  it('prints in its hooks only outputs the template has', () => {
    const outputs = Object.keys(template().template.outputs ?? {});
    const hooks = JSON.stringify(section(azureYaml, 'hooks'));
    const used = [...hooks.matchAll(/\$(?:env:)?([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(outputs, name).toContain(name);
  });

  it('gets the secret commands as text, one command per connector secret per line', () => {
    // azd keeps an array output as JSON text: the hook would print one line of JSON, quotes
    // escaped, that no one can paste. A string output prints as the commands themselves.
    const { template: armTemplate, snapshot, parameters } = template();
    expect(armTemplate.outputs?.CONNECTOR_SECRET_COMMANDS?.type).toBe('string');
    const vault = onlyResource(snapshot, 'Microsoft.KeyVault/vaults').name;
    const secrets = secretNamesIn(parameters.parameters.connectors?.value);
    expect(secrets.length).toBe(2);
    expect(String(snapshot.outputs.CONNECTOR_SECRET_COMMANDS).split('\n')).toEqual(
      secrets.map(
        (name) =>
          `read -rs SECRET_VALUE && az keyvault secret set --vault-name ${vault} --name ${name} --value "$SECRET_VALUE" --output none && unset SECRET_VALUE`,
      ),
    );
  });
});
