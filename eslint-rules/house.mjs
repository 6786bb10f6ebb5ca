// The house's rules for ESLint (DESIGN: Layout): arrows between rooms point inward, and no
// module imports itself through a circle. Built on ESLint's own no-restricted-imports and a
// small local rule, so no resolver with native bindings is needed.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** What workflows may import, and through them the API. */
const WORKFLOWS = ['domain', 'config', 'secrets', 'store', 'connectors', 'telemetry'];
/** Everything the server is made of: what the composing rooms (local host, CLI) may use. */
const SERVER = [...WORKFLOWS, 'workflows', 'api'];

/**
 * The rooms of src/ and the rooms each may import from: functions -> workflows/api ->
 * telemetry -> connectors/store/secrets -> config -> domain; the local host and the CLI
 * compose; sandboxes stand apart. Connectors tell telemetry through hooks they declare, so
 * telemetry implements them and connectors never import it. The web console runs in a
 * browser and talks to the API over HTTP only: it imports nothing of the server, and
 * nothing imports it.
 */
export const MAY_IMPORT = {
  domain: [],
  config: ['domain'],
  secrets: ['domain', 'config'],
  store: ['domain', 'config'],
  connectors: ['domain', 'config', 'secrets'],
  telemetry: ['domain', 'config', 'connectors'],
  workflows: WORKFLOWS,
  api: [...WORKFLOWS, 'workflows'],
  runtime: [...SERVER, 'sandbox'],
  cli: [...SERVER, 'runtime'],
  sandbox: ['domain'],
  console: [],
};

/** One no-restricted-imports block per room: every room it may not import from is named. */
export function arrowsInward() {
  const rooms = Object.keys(MAY_IMPORT);
  return Object.entries(MAY_IMPORT).map(([room, allowed]) => ({
    files: [`src/${room}/**/*.ts`, `src/${room}/**/*.tsx`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: rooms
            .filter((other) => other !== room && !allowed.includes(other))
            .map((other) => ({
              // Relative imports only: a package may share a room's name (@opentelemetry/api).
              regex: `^\\.\\.?/(?:.*/)?${other}(?:/|$)`,
              message: `src/${room} may not import from src/${other}: arrows point inward (DESIGN: Layout).`,
            })),
        },
      ],
    },
  }));
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]/gm;

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The modules a TypeScript file imports for their values (relative imports, resolved to
 * files; `import type` and `export type` vanish at compile time and cannot make a circle).
 */
export function valueImportsOf(file, text) {
  const found = [];
  for (const match of text.matchAll(IMPORT)) {
    if (match[2] !== undefined) continue;
    const target = resolve(dirname(file), match[3].replace(/\.js$/, ''));
    const hit = [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find(isFile);
    if (hit !== undefined) found.push(hit);
  }
  return found;
}

const cache = new Map();

function importsOf(file) {
  const mtime = statSync(file).mtimeMs;
  const cached = cache.get(file);
  if (cached?.mtime === mtime) return cached.imports;
  const imports = valueImportsOf(file, readFileSync(file, 'utf8'));
  cache.set(file, { mtime, imports });
  return imports;
}

/**
 * The shortest circle of imports that leads from `start` back to it, as a list of files
 * beginning and ending with `start`; undefined when there is none.
 */
export function circleThrough(start, startImports, next = importsOf) {
  const parent = new Map();
  const queue = [];
  for (const file of startImports) {
    if (!parent.has(file)) parent.set(file, start);
    queue.push(file);
  }
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === start) {
      const path = [start];
      for (let at = parent.get(start); at !== start; at = parent.get(at)) path.unshift(at);
      return [start, ...path];
    }
    for (const imported of next(file)) {
      if (parent.has(imported)) continue;
      parent.set(imported, file);
      queue.push(imported);
    }
  }
  return undefined;
}

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no module may import itself through a circle of value imports' },
    messages: { circle: 'circular import: {{circle}}' },
    schema: [],
  },
  create(context) {
    return {
      Program(node) {
        const file = context.filename;
        const circle = circleThrough(file, valueImportsOf(file, context.sourceCode.text));
        if (circle === undefined) return;
        const names = circle.map((path) => relative(context.cwd, path));
        context.report({ node, messageId: 'circle', data: { circle: names.join(' -> ') } });
      },
    };
  },
};

export const housePlugin = { meta: { name: 'house' }, rules: { 'no-cycle': noCycle } };
