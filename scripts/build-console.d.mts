/** The console's build (scripts/build-console.mjs), for tests that build it into a folder of their own. */
export const CONSOLE_BASE: string;
export function buildConsole(options?: {
  outdir?: string;
  minify?: boolean;
}): Promise<{ path: string; bytes: number }[]>;
