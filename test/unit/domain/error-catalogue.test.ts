import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../src/api/openapi';
import { ERROR_CATALOGUE, ERROR_CODES, httpStatusOf } from '../../../src/domain/error-catalogue';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the error catalogue: the closed set of codes callers handle', () => {
  it('lists every code the service raises or answers with', () => {
    const raised = new Set<string>();
    for (const file of [...sources('src'), ...sources('functions')]) {
      // Code, not comments: JSDoc examples quote Node's own error codes (ECONNREFUSED).
      const text = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/)/.test(line))
        .join('\n');
      for (const match of text.matchAll(
        /(?:ProvisioningError\(\s*|code: |problem\(\s*\d+,\s*)'([A-Z][A-Z_]+)'/g,
      )) {
        raised.add(match[1]!);
      }
    }
    expect(raised.size).toBeGreaterThan(20);
    expect([...raised].filter((code) => !ERROR_CODES.includes(code as never))).toEqual([]);
  });

  it('gives each code a status and a meaning, and the OpenAPI document the same enum', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_CATALOGUE[code].status).toBeGreaterThanOrEqual(400);
      expect(ERROR_CATALOGUE[code].meaning.length).toBeGreaterThan(10);
    }
    const document = JSON.stringify(openApiDocument());
    const parsed = JSON.parse(document) as {
      components: {
        schemas: Record<
          string,
          { properties: { error: { properties: { code: { enum: string[] } } } } }
        >;
      };
    };
    const enums = Object.values(parsed.components.schemas)
      .map((schema) => schema.properties?.error?.properties?.code?.enum)
      .filter((values) => values !== undefined);
    expect(enums).toContainEqual(ERROR_CODES);
  });

  it('answers a code outside the catalogue (from an older history) by whether retrying may help', () => {
    expect(httpStatusOf({ code: 'GROUP_NOT_FOUND', retryable: false })).toBe(404);
    expect(httpStatusOf({ code: 'NO_SUCH_CODE' as never, retryable: true })).toBe(503);
    expect(httpStatusOf({ code: 'NO_SUCH_CODE' as never, retryable: false })).toBe(502);
  });
});
