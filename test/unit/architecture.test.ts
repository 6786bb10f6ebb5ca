import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The house's ESLint rules (eslint-rules/house.mjs), which `npm run lint` runs in CI: an
// import from a room to a higher one and a circle of imports both fail the lint.

type House = typeof import('../../eslint-rules/house.mjs');
const root = resolve(__dirname, '../..');
let house: House;
beforeAll(async () => {
  house = await import('../../eslint-rules/house.mjs');
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the house rules', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'house-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function lint(files: Record<string, string>): Promise<string[]> {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(scratch, path, '..'), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const eslint = new ESLint({
      cwd: scratch,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
        ...house.arrowsInward(),
        {
          files: ['**/*.ts'],
          plugins: { house: house.housePlugin },
          rules: { 'house/no-cycle': 'error' },
        },
      ],
    });
    const results = await eslint.lintFiles(Object.keys(files));
    return results.flatMap((result) =>
      result.messages.map((message) => `${relative(scratch, result.filePath)}: ${message.message}`),
    );
  }

  it('fails an import from a lower room to a higher one', async () => {
    expect(
      await lint({
        'src/domain/rule.ts':
          "import { registry } from '../connectors/registry';\nexport const rule = registry;\n",
        'src/connectors/registry.ts': 'export const registry = 1;\n',
      }),
    ).toEqual([
      "src/domain/rule.ts: '../connectors/registry' import is restricted from being used by a pattern. src/domain may not import from src/connectors: arrows point inward (DESIGN: Layout).",
    ]);
  });

  it("takes a package that shares a room's name for a package, not for the room", async () => {
    expect(
      await lint({
        'src/telemetry/meter.ts':
          "import { metrics } from '@opentelemetry/api';\nimport { x } from '../api/x';\nexport const m = [metrics, x];\n",
        'src/api/x.ts': 'export const x = 1;\n',
      }),
    ).toEqual([
      "src/telemetry/meter.ts: '../api/x' import is restricted from being used by a pattern. src/telemetry may not import from src/api: arrows point inward (DESIGN: Layout).",
    ]);
  });

  it('keeps the console apart: it imports nothing of the server, and nothing imports it', async () => {
    expect(
      await lint({
        'src/console/page.ts':
          "import type { RequestReport } from '../domain/request-report';\nexport type Page = RequestReport;\n",
        'src/api/handler.ts':
          "import { BASE } from '../console/routes';\nexport const base = BASE;\n",
        'src/console/routes.ts': "export const BASE = '/api/console';\n",
        'src/domain/request-report.ts': 'export type RequestReport = { id: string };\n',
      }).then((messages) => messages.sort()),
    ).toEqual([
      "src/api/handler.ts: '../console/routes' import is restricted from being used by a pattern. src/api may not import from src/console: arrows point inward (DESIGN: Layout).",
      "src/console/page.ts: '../domain/request-report' import is restricted from being used by a pattern. src/console may not import from src/domain: arrows point inward (DESIGN: Layout).",
    ]);
  });

  it('fails a circle of value imports and names it, but not a circle through `import type`', async () => {
    expect(
      await lint({
        'src/domain/a.ts': "import { b } from './b';\nexport const a = b;\n",
        'src/domain/b.ts': "import { c } from './c.js';\nexport const b = c;\n",
        'src/domain/c.ts': "export {\n  a as c,\n} from './a';\n",
        'src/domain/d.ts': "import type { e } from './e';\nexport const d = 1 as unknown as e;\n",
        'src/domain/e.ts': "import { d } from './d';\nexport type e = typeof d;\n",
      }),
    ).toEqual([
      'src/domain/a.ts: circular import: src/domain/a.ts -> src/domain/b.ts -> src/domain/c.ts -> src/domain/a.ts',
      'src/domain/b.ts: circular import: src/domain/b.ts -> src/domain/c.ts -> src/domain/a.ts -> src/domain/b.ts',
      'src/domain/c.ts: circular import: src/domain/c.ts -> src/domain/a.ts -> src/domain/b.ts -> src/domain/c.ts',
    ]);
  });

  it('finds no circle in src/ and functions/ today', () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'functions'))];
    const imports = files.map((file) => house.valueImportsOf(file, readFileSync(file, 'utf8')));
    expect(files.length).toBeGreaterThan(50);
    expect(imports.flat().length).toBeGreaterThan(200);
    const circles = files.flatMap((file, i) => {
      const circle = house.circleThrough(file, imports[i]!);
      return circle === undefined ? [] : [circle.map((path) => relative(root, path)).join(' -> ')];
    });
    expect(circles).toEqual([]);
  });
});
