// Builds the deployment package as Azure would (the files .funcignore lets through, npm ci,
// npm run build, then the dev packages pruned) in a scratch folder, and checks that it
// carries no sandbox and no dev package and that the Functions entry point loads.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const patterns = readFileSync(join(root, '.funcignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** `.funcignore` lines: a path, a folder prefix, or a name with `*` wildcards. */
function ignored(path) {
  return patterns.some((pattern) => {
    const regex = new RegExp(
      `^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`,
    );
    const parts = path.split('/');
    return (
      parts.some((_, i) => regex.test(parts.slice(0, i + 1).join('/'))) || regex.test(parts.at(-1))
    );
  });
}

const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && !ignored(file));
const dir = mkdtempSync(join(tmpdir(), 'deployment-package-'));
const run = (command, args) =>
  execFileSync(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
try {
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  const problems = [];
  for (const path of ['src/sandbox', 'src/cli', 'src/runtime/local-host', 'test']) {
    if (existsSync(join(dir, path))) problems.push(`the package carries ${path}`);
  }
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
  run('npm', ['run', 'build', '--silent']);
  // The remote build makes the console too: its page and hashed bundle are served by the app.
  if (!existsSync(join(dir, 'dist', 'console', 'index.html'))) {
    problems.push('the build made no console (dist/console/index.html)');
  }
  run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund']);
  for (const name of [
    'scimmy',
    'scimmy-routers',
    'express',
    'selfsigned',
    'azurite',
    'vitest',
    'typescript',
  ]) {
    if (existsSync(join(dir, 'node_modules', name)))
      problems.push(`the package carries node_modules/${name}`);
  }
  const loaded = run('node', [
    '-e',
    "require('./dist/functions/index.js'); console.log(JSON.stringify(Object.keys(require.cache).filter((k) => /sandbox|scimmy|express|selfsigned|azurite/.test(k))))",
  ]);
  const strays = JSON.parse(loaded.trim().split('\n').at(-1));
  if (strays.length > 0) problems.push(`the entry point loaded ${strays.join(', ')}`);
  if (problems.length > 0) {
    console.error(`deployment package check failed:\n- ${problems.join('\n- ')}`);
    process.exitCode = 1;
  } else {
    console.log(
      `deployment package check: ${files.length} files, no sandbox, no dev package; dist/functions/index.js loads; the console is built`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
