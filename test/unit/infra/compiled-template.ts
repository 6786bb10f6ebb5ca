import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'vitest';

/**
 * What the Bicep compiler made of infra/: the ARM template, the parameters and the deployment
 * snapshot (every resource the deployment would create, evaluated by Bicep with the fixed
 * deployment values of scripts/check-infra.mjs). The tests read these, never the Bicep text.
 *
 * Loading runs `scripts/check-infra.mjs --if-stale` first: a no-op when build/infra/ was built
 * from the current sources, else a compile with the cached CLI. The script leaves build/infra/
 * empty when it cannot compile, so its presence means current. Missing in CI is a failure;
 * missing locally (no .NET SDK) skips the template tests with the script's reason.
 */

export const repoRoot = join(__dirname, '..', '..', '..');
export const checkScript = join(repoRoot, 'scripts', 'check-infra.mjs');
const buildDir = join(repoRoot, 'build', 'infra');

/** One resource of the snapshot; runtime values stay ARM expressions (`[reference(...)]`). */
export interface PredictedResource {
  id: string;
  type: string;
  name: string;
  apiVersion: string;
  location?: string;
  kind?: string;
  sku?: Record<string, unknown>;
  tags?: Record<string, string>;
  identity?: { type: string; userAssignedIdentities?: Record<string, unknown> };
  properties?: Record<string, unknown>;
}

export interface Snapshot {
  predictedResources: PredictedResource[];
  outputs: Record<string, unknown>;
  diagnostics: unknown[];
}

/** An ARM template as Bicep emits it (resources as an array: no symbolic-name codegen). */
export interface ArmTemplate {
  $schema: string;
  parameters?: Record<string, ArmParameter>;
  variables?: Record<string, unknown>;
  resources: ArmResource[];
  outputs?: Record<string, { type: string; value: unknown }>;
}

export interface ArmParameter {
  type: string;
  defaultValue?: unknown;
  allowedValues?: unknown[];
  minValue?: number;
  maxValue?: number;
}

export interface ArmResource {
  type: string;
  name: string;
  properties?: {
    parameters?: Record<string, { value: unknown }>;
    template?: ArmTemplate;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface Compiled {
  template: ArmTemplate;
  parameters: { parameters: Record<string, { value: unknown }> };
  snapshot: Snapshot;
  /** The text of each output file, for searches over everything the compiler produced. */
  texts: Record<string, string>;
}

/**
 * The deployments the check evaluates besides the default (scripts/check-infra.mjs VARIANTS):
 * `storage-backend` is `azd env set DURABLE_BACKEND storage`; `entra-sign-in` is
 * `azd env set ENABLE_ENTRA_AUTH true` with an `API_CLIENT_ID`.
 */
export type Variant = 'default' | 'storage-backend' | 'entra-sign-in';
const VARIANTS: Variant[] = ['default', 'storage-backend', 'entra-sign-in'];

const inCi = !['', '0', 'false'].includes(process.env.CI ?? '');

function load(): Record<Variant, Compiled> | { skipped: string } {
  const run = spawnSync(process.execPath, [checkScript, '--if-stale'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const said = `${run.stdout}${run.stderr}`.trim();
  if (run.status !== 0) throw new Error(`scripts/check-infra.mjs failed:\n${said}`);
  const stampFile = join(buildDir, 'check.json');
  if (!existsSync(stampFile)) {
    if (inCi) throw new Error(`CI: build/infra/ is missing after the check:\n${said}`);
    const why = said.split('\n')[0]?.replace(/^infra-check: skipped: /, '');
    return { skipped: why || 'build/infra/ is missing' };
  }
  const read = (name: string): string => readFileSync(join(buildDir, name), 'utf8');
  const fileOf = (variant: Variant, kind: 'parameters' | 'snapshot'): string =>
    variant === 'default' ? `main.${kind}.json` : `main.${variant}.${kind}.json`;
  const texts: Record<string, string> = { 'main.json': read('main.json') };
  for (const variant of VARIANTS) {
    for (const kind of ['parameters', 'snapshot'] as const) {
      texts[fileOf(variant, kind)] = read(fileOf(variant, kind));
    }
  }
  const template = JSON.parse(texts['main.json']!) as ArmTemplate;
  return Object.fromEntries(
    VARIANTS.map((variant) => [
      variant,
      {
        template,
        parameters: JSON.parse(texts[fileOf(variant, 'parameters')]!) as Compiled['parameters'],
        snapshot: JSON.parse(texts[fileOf(variant, 'snapshot')]!) as Snapshot,
        texts,
      },
    ]),
  ) as Record<Variant, Compiled>;
}

const loaded = load();

/** The compiled template of each variant, or undefined when the tests must be skipped. */
const compiled: Record<Variant, Compiled> | undefined = 'skipped' in loaded ? undefined : loaded;

/** Empty, or why the template tests are skipped on this machine. */
const skipReason = 'skipped' in loaded ? ` (skipped: ${loaded.skipped})` : '';

/** A describe block on the compiled template: skipped, saying why, when there is none. */
export function describeCompiled(title: string, body: () => void): void {
  describe.skipIf(compiled === undefined)(`${title}${skipReason}`, body);
}

/**
 * The compiled template inside a test body (the describe block is skipped without it), with the
 * parameters and snapshot of the default deployment or of a variant. `texts` holds every file.
 */
export function template(variant: Variant = 'default'): Compiled {
  if (compiled === undefined) throw new Error(`no compiled template${skipReason}`);
  return compiled[variant];
}
