import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Plain-text reading of the Bicep templates: there is no Bicep compiler on these machines, so the
 * infra tests look at the source itself. Every helper is pure over a string so that the tests can
 * also feed it a broken copy and see the check fail.
 */

export const repoRoot = join(__dirname, '..', '..', '..');
export const infraRoot = join(repoRoot, 'infra');

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

/** Every `.bicep` file under infra/, sorted by path. */
export function bicepFiles(): SourceFile[] {
  const found: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.bicep')) {
        found.push({
          path: relative(repoRoot, full).split('\\').join('/'),
          text: readFileSync(full, 'utf8'),
        });
      }
    }
  };
  walk(infraRoot);
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** One file under the repository root as text. */
export function readRepoFile(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

/**
 * The balanced `{...}` or `[...]` block that opens at or after `from`, quotes and comments
 * skipped (Bicep strings are single-quoted, `\'` escapes, `'''` is a multi-line string).
 */
export function blockAt(text: string, from: number): string {
  const start = text.slice(from).search(/[{[]/);
  if (start < 0) throw new Error(`no block after offset ${from}`);
  const open = from + start;
  let depth = 0;
  let i = open;
  while (i < text.length) {
    if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3);
      i = end < 0 ? text.length : end + 3;
      continue;
    }
    const ch = text[i];
    if (ch === "'") {
      i += 1;
      while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (ch === '{' || ch === '[') {
      depth += 1;
    } else if (ch === '}' || ch === ']') {
      depth -= 1;
      if (depth === 0) return text.slice(open, i + 1);
    }
    i += 1;
  }
  throw new Error(`unbalanced block at offset ${open}`);
}

/** The block that follows the first occurrence of `marker` (e.g. `var appSettings =`). */
export function blockAfter(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`"${marker}" not found`);
  return blockAt(text, at + marker.length);
}

/** Keys of an object literal block at its top level, in order (`key:` or `'key':`). */
export function topLevelKeys(block: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (const line of block.split('\n')) {
    const match = /^\s*('[^']+'|[A-Za-z_][\w]*)\s*:/.exec(line);
    if (depth === 1 && match?.[1] !== undefined) keys.push(match[1].replace(/'/g, ''));
    const code = line.replace(/'[^']*'/g, "''").replace(/\/\/.*$/, '');
    for (const ch of code) {
      if (ch === '{' || ch === '[') depth += 1;
      else if (ch === '}' || ch === ']') depth -= 1;
    }
  }
  return keys;
}

export interface ResourceDeclaration {
  symbol: string;
  type: string;
  apiVersion: string;
  existing: boolean;
  /** The resource body, from `{` (or the loop's `[`) to its end. */
  body: string;
}

/** Every `resource <symbol> '<type>@<apiVersion>'` declaration with its body. */
export function resourceDeclarations(text: string): ResourceDeclaration[] {
  const pattern = /^\s*resource\s+(\w+)\s+'([^'@]+)@([^']+)'\s*(existing\s*)?=/gm;
  return [...text.matchAll(pattern)].map((match) => ({
    symbol: match[1] ?? '',
    type: match[2] ?? '',
    apiVersion: match[3] ?? '',
    existing: match[4] !== undefined,
    body: blockAt(text, (match.index ?? 0) + match[0].length),
  }));
}

export interface GuidLiteral {
  guid: string;
  /** The `// comment` on the same line, trimmed; empty when there is none. */
  comment: string;
  line: number;
}

/** Every quoted GUID literal with the comment on its line. */
export function guidLiterals(text: string): GuidLiteral[] {
  const found: GuidLiteral[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(
      /'([0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})'/g,
    )) {
      const comment = /\/\/\s*(.*)$/.exec(line.slice((match.index ?? 0) + match[0].length));
      found.push({
        guid: (match[1] ?? '').toLowerCase(),
        comment: comment?.[1]?.trim() ?? '',
        line: index + 1,
      });
    }
  });
  return found;
}

/**
 * Whether a Node.js major version satisfies an npm engines range of the forms used here:
 * `>=X[.Y[.Z]]`, `^X[...]`, `X[.x]`. Only the major is compared: the Flex Consumption runtime is
 * chosen by major version and always runs that line's latest release.
 */
export function majorSatisfies(range: string, major: number): boolean {
  const trimmed = range.trim();
  const atLeast = /^>=\s*(\d+)(?:\.\d+){0,2}$/.exec(trimmed);
  if (atLeast?.[1] !== undefined) return major >= Number(atLeast[1]);
  const caretOrExact = /^\^?(\d+)(?:\.(?:\d+|x|\*)){0,2}$/.exec(trimmed);
  if (caretOrExact?.[1] !== undefined) return major === Number(caretOrExact[1]);
  throw new Error(`unsupported engines range "${range}"`);
}
