import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { arrowsInward, housePlugin } from './eslint-rules/house.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '**/*.mjs',
      '**/*.d.mts',
      'eslint-rules/**',
    ],
  },
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
  // The house (DESIGN: Layout): arrows between rooms point inward, and no circle.
  ...arrowsInward(),
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'functions/**/*.ts'],
    plugins: { house: housePlugin },
    rules: { 'house/no-cycle': 'error' },
  },
  {
    // The console renders what targets say (group names, messages) as text only: no HTML sink.
    files: ['src/console/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'the console renders text only: no dangerouslySetInnerHTML',
        },
        {
          selector:
            'AssignmentExpression > MemberExpression.left[property.name=/^(innerHTML|outerHTML)$/]',
          message: 'the console renders text only: no innerHTML',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln)$/]',
          message: 'the console renders text only: no HTML strings',
        },
      ],
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/*', '**/sandbox/*', '**/local-host/*'],
              message: 'the Functions app registers handlers: no CLI, no sandbox, no local host.',
            },
          ],
        },
      ],
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
    // End-to-end and browser tests read JSON answers of the API as it is, untyped, like a caller would.
    files: ['test/e2e/**', 'test/browser/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
