// Builds the web console (src/console) with esbuild into dist/console: index.html and the
// bundle under assets/ with content hashes in the file names, so the app can cache them for
// a year and serve index.html uncached. No CDN, no inline script: the page loads its own
// files only, as its Content-Security-Policy demands.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the app serves the console (src/api/routes.ts: route console/{*path}). */
export const CONSOLE_BASE = '/api/console';

/**
 * Builds the console into `outdir` (emptied first); answers the files it wrote with their
 * sizes.
 */
export async function buildConsole({ outdir = join(root, 'dist', 'console'), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { console: 'src/console/main.tsx' },
    outdir,
    entryNames: 'assets/[name].[hash]',
    assetNames: 'assets/[name].[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'edge115', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    legalComments: 'eof',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) =>
    relative(outdir, join(root, path)),
  );
  const script = outputs.find((path) => path.endsWith('.js'));
  const style = outputs.find((path) => path.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error('console build: no bundle');
  const icon = hashed(readFileSync(join(root, 'src/console/icon.svg')), 'icon', '.svg');
  writeFileSync(join(outdir, icon.path), icon.body);
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Provisioning console</title>
    <link rel="icon" href="${CONSOLE_BASE}/${icon.path}" type="image/svg+xml" />
    <link rel="stylesheet" href="${CONSOLE_BASE}/${style}" />
    <script type="module" src="${CONSOLE_BASE}/${script}"></script>
  </head>
  <body>
    <noscript>The provisioning console needs JavaScript.</noscript>
    <div id="app"></div>
  </body>
</html>
`;
  writeFileSync(join(outdir, 'index.html'), html);
  return [...outputs, icon.path, 'index.html'].map((path) => ({
    path,
    bytes: readFileSync(join(outdir, path)).length,
  }));
}

function hashed(body, name, extension) {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 8).toUpperCase();
  return { path: `assets/${name}.${hash}${extension}`, body };
}

if (
  process.argv[1] !== undefined &&
  basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))
) {
  const files = await buildConsole();
  const total = files.reduce((sum, f) => sum + f.bytes, 0);
  console.log(`console: ${files.length} files, ${(total / 1024).toFixed(1)} KiB in dist/console`);
}
