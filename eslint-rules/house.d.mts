// Types for the house's ESLint rules, for the test that runs them (test/unit/architecture.test.ts).
import type { ESLint, Linter } from 'eslint';

export declare const MAY_IMPORT: Record<string, string[]>;
export declare function arrowsInward(): Linter.Config[];
export declare function valueImportsOf(file: string, text: string): string[];
export declare function circleThrough(
  start: string,
  startImports: string[],
  next?: (file: string) => string[],
): string[] | undefined;
export declare const housePlugin: ESLint.Plugin;
