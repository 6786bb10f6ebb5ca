import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ArmParameter } from './compiled-template';
import { describeCompiled, repoRoot, template } from './compiled-template';

const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

/** Where a parameter value breaks its declaration in main.bicep. */
function valueProblems(name: string, declared: ArmParameter | undefined, value: unknown): string[] {
  if (declared === undefined) return [`${name}: set, but main.bicep declares no such parameter`];
  const problems: string[] = [];
  const type = Array.isArray(value) ? 'array' : typeof value;
  const expected = {
    string: 'string',
    int: 'number',
    bool: 'boolean',
    array: 'array',
    object: 'object',
  };
  if (expected[declared.type as keyof typeof expected] !== type) {
    problems.push(`${name}: ${type}, declared ${declared.type}`);
  }
  if (declared.allowedValues !== undefined && !declared.allowedValues.includes(value)) {
    problems.push(`${name}: ${JSON.stringify(value)} is not allowed`);
  }
  if (typeof value === 'number' && declared.minValue !== undefined && value < declared.minValue) {
    problems.push(`${name}: below ${declared.minValue}`);
  }
  if (typeof value === 'number' && declared.maxValue !== undefined && value > declared.maxValue) {
    problems.push(`${name}: above ${declared.maxValue}`);
  }
  return problems;
}

describeCompiled('infra/main.bicepparam against infra/main.bicep', () => {
  it.each(['default', 'storage-backend'] as const)(
    'sets every required parameter, and only declared ones with values they allow (%s)',
    (variant) => {
      const { template: arm, parameters } = template(variant);
      const declared = arm.parameters ?? {};
      const given = parameters.parameters;
      const problems = Object.entries(given).flatMap(([name, { value }]) =>
        valueProblems(name, declared[name], value),
      );
      const missing = Object.entries(declared)
        .filter(([name, p]) => p.defaultValue === undefined && given[name] === undefined)
        .map(([name]) => `${name}: required, not set`);
      expect([...problems, ...missing]).toEqual([]);
    },
  );

  it('would name an undeclared parameter, a wrong type and a value out of bounds', () => {
    expect(valueProblems('alertEmail', undefined, 'x')).toEqual([
      'alertEmail: set, but main.bicep declares no such parameter',
    ]);
    const percent: ArmParameter = { type: 'int', minValue: 1, maxValue: 100 };
    expect(valueProblems('alertFailurePercent', percent, 120)).toEqual([
      'alertFailurePercent: above 100',
    ]);
    expect(
      valueProblems('durableBackend', { type: 'string', allowedValues: ['scheduler'] }, 1),
    ).toEqual(['durableBackend: number, declared string', 'durableBackend: 1 is not allowed']);
  });

  it('reads only azd settings that infra/README.md documents', () => {
    const names = [
      ...read('infra/main.bicepparam').matchAll(/readEnvironmentVariable\('(\w+)'/g),
    ].map(([, name]) => name!);
    expect(names).toEqual(expect.arrayContaining(['ALERT_EMAIL', 'DURABLE_BACKEND']));
    const readme = read('infra/README.md');
    expect(
      names.filter((name) => !readme.includes(`\`${name}`) && !readme.includes(`${name} `)),
    ).toEqual([]);
  });
});
