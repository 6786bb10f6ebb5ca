import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the console's build, held in memory with its gzip form. */
export interface ConsoleFile {
  body: Buffer;
  gzip: Buffer;
  contentType: string;
  etag: string;
}

/** The console as `npm run build` writes it: `index.html` and hashed files under `assets/`. */
export interface ConsoleAssets {
  index: ConsoleFile;
  /** By file name under `assets/`. */
  files: Map<string, ConsoleFile>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Where the build put the console: `dist/console` beside the compiled code
 * (`dist/src/api` -> `dist/console`), or under `dist/` when this module runs from source.
 */
export function defaultConsoleDirectory(): string {
  const compiled = resolve(__dirname, '..', '..', 'console');
  return existsSync(join(compiled, 'index.html'))
    ? compiled
    : resolve(__dirname, '..', '..', 'dist', 'console');
}

/**
 * Reads the built console once; undefined when it was not built. The files are small (the
 * whole console is tens of kilobytes), so they are served from memory, gzipped once.
 */
export function loadConsoleAssets(directory: string): ConsoleAssets | undefined {
  if (!existsSync(join(directory, 'index.html'))) return undefined;
  const files = new Map<string, ConsoleFile>();
  const assets = join(directory, 'assets');
  for (const name of existsSync(assets) ? readdirSync(assets) : []) {
    files.set(name, consoleFile(readFileSync(join(assets, name)), name));
  }
  return { index: consoleFile(readFileSync(join(directory, 'index.html')), 'index.html'), files };
}

function consoleFile(body: Buffer, name: string): ConsoleFile {
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}
