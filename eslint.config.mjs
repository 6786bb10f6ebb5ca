import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The rooms of the house (DESIGN: Layout) and the rooms each may not import from: arrows
 * point inward (functions -> workflows/api -> connectors/store/secrets -> domain); the
 * local host and the CLI compose; sandboxes stand apart.
 */
const ROOMS = [
  'domain',
  'config',
  'secrets',
  'store',
  'connectors',
  'workflows',
  'api',
  'runtime',
  'cli',
  'sandbox',
];
const MAY_IMPORT = {
  domain: [],
  config: ['domain'],
  secrets: ['domain', 'config'],
  store: ['domain', 'config'],
  connectors: ['domain', 'config', 'secrets'],
  workflows: ['domain', 'config', 'secrets', 'store', 'connectors'],
  api: ['domain', 'config', 'secrets', 'store', 'connectors', 'workflows'],
  runtime: ['domain', 'config', 'secrets', 'store', 'connectors', 'workflows', 'api', 'sandbox'],
  cli: ['domain', 'config', 'secrets', 'store', 'connectors', 'workflows', 'api', 'runtime'],
  sandbox: ['domain'],
};
const zones = Object.entries(MAY_IMPORT).flatMap(([room, allowed]) =>
  ROOMS.filter((other) => other !== room && !allowed.includes(other)).map((other) => ({
    target: `./src/${room}`,
    from: `./src/${other}`,
    message: `src/${room} may not import from src/${other}: arrows point inward (DESIGN: Layout).`,
  })),
);
zones.push({
  target: './functions',
  from: ['./src/cli', './src/sandbox'],
  message: 'the Functions app registers handlers; it carries no CLI and no sandbox.',
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'functions/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    files: ['src/cli/**', 'test/bench/**', 'test/faults/main.ts', 'src/runtime/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.stringContaining) are typed `any`.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // End-to-end tests read JSON answers of the API as it is, untyped, like a caller would.
    files: ['test/e2e/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
