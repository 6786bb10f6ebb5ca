import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkScript, describeCompiled, repoRoot } from './compiled-template';

/**
 * A small infra folder that breaks each rule the check must enforce once, checked with the real
 * script, compiler and bicepconfig.json. Bicep ignores a misspelt rule name in bicepconfig.json
 * without a word, so only a violation that is reported proves a rule is on.
 */
const PROBE: Record<string, string> = {
  'main.bicep': `
param location string
param unusedParam string
param adminPassword string
@secure()
param token string = 'literal-default'
@secure()
param dbPassword string
param connectionString string
var unusedVar = 'x'
var endpoint = 'https://management.azure.com/'

resource unknownVersion 'Microsoft.Storage/storageAccounts@2099-01-01' = {
  name: 'probe\${uniqueString(resourceGroup().id)}'
  location: location
}

#disable-next-line BCP081 // the probe's own suppression, for this line only
resource suppressed 'Microsoft.Storage/storageAccounts@2098-01-01' = {
  name: 'probe2\${uniqueString(resourceGroup().id)}'
  location: location
}

resource fixedPlace 'Microsoft.Storage/storageAccounts@2025-06-01' = {
  name: 'probe3\${uniqueString(resourceGroup().id)}'
  location: 'westeurope'
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
  tags: { size: string(length(dbPassword)) }
}

output tokenOut string = token
output url string = endpoint
output who string = adminPassword
output cs string = connectionString
`,
  'main.bicepparam': `
using 'main.bicep'
param location = 'westeurope'
param unusedParam = 'x'
param adminPassword = 'x'
param token = ''
param dbPassword = 'a-value'
param connectionString = dbPassword
`,
  'app/not-wired-yet.bicep': `
param notUsedEither string
`,
};

/** The rules that matter (issue 20), each where the probe breaks it. */
const EXPECTED = [
  'infra/app/not-wired-yet.bicep(1): Error no-unused-params', // linted though no entry uses it
  'infra/main.bicep(2): Error no-unused-params',
  'infra/main.bicep(3): Error secure-secrets-in-params',
  'infra/main.bicep(5): Error secure-parameter-default',
  'infra/main.bicep(9): Error no-unused-vars',
  'infra/main.bicep(10): Error no-hardcoded-env-urls',
  'infra/main.bicep(12): Warning BCP081', // a compiler warning fails too; line 18 is suppressed
  'infra/main.bicep(25): Error no-hardcoded-location',
  'infra/main.bicep(31): Error outputs-should-not-contain-secrets',
  'infra/main.bicepparam(1): Error BCP104', // its template has errors
  'infra/main.bicepparam(7): Error secure-params-in-parameters-file',
];

const scratch = mkdtempSync(join(tmpdir(), 'infra-check-probe-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeCompiled('the rules of the infra check', () => {
  it('fail on each rule that matters and on a type without types, but not on a suppressed line', () => {
    for (const [path, text] of Object.entries(PROBE)) {
      mkdirSync(join(scratch, 'infra', path, '..'), { recursive: true });
      writeFileSync(join(scratch, 'infra', path), text.trimStart());
    }
    const out = join(scratch, 'out');
    const run = spawnSync(
      process.execPath,
      [checkScript, '--infra', join(scratch, 'infra'), '--out', out],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^infra-check: FAILED/m);
    const reported = [...run.stdout.matchAll(/^(\S+?)\((\d+)\): (Error|Warning) ([\w-]+):/gm)].map(
      ([, file, line, level, code]) =>
        `${relative(scratch, resolve(repoRoot, file!))}(${line}): ${level} ${code}`,
    );
    expect([...new Set(reported)].sort()).toEqual([...EXPECTED].sort());
    expect(existsSync(out)).toBe(false); // nothing for the tests to read after a failure
  });
});

/** The lines of a Bicep file that switch a diagnostic off without saying why on the same line. */
function unexplainedSuppressions(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      /#disable-(next-line|diagnostics)/.test(line) && !/\/\/\s*\S.{8,}/.test(line)
        ? [`${path}:${index + 1}`]
        : [],
    );
}

describe('suppressed diagnostics in infra/', () => {
  it('each say why, on the same line', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.bicep(param)?$/.test(entry.name)) {
          found.push(
            ...unexplainedSuppressions(relative(repoRoot, path), readFileSync(path, 'utf8')),
          );
        }
      }
    };
    walk(join(repoRoot, 'infra'));
    expect(found).toEqual([]);
  });

  it('would name a suppression without a reason', () => {
    const text = [
      '#disable-next-line BCP081 // Microsoft.DurableTask is newer than Bicep 0.49.2',
      "resource scheduler 'Microsoft.DurableTask/schedulers@2099-01-01' = {}",
      '#disable-next-line no-unused-params',
      'param unused string',
    ].join('\n');
    expect(unexplainedSuppressions('x.bicep', text)).toEqual(['x.bicep:3']);
  });
});
