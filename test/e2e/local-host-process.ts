import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** What `npm start` runs once it has built the service. */
const ENTRY = join(ROOT, 'dist', 'src', 'runtime', 'local-host', 'main.js');

/** The newest modification time under a folder (0 when it does not exist). */
function newest(folder: string): number {
  if (!existsSync(folder)) return 0;
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Builds the service as `npm start` does when the build is older than the sources (CI has
 * just built it): the test runs the real entry point in a child process of its own.
 */
export function ensureBuilt(): void {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newest(join(ROOT, 'src'))) return;
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
}

/** A local host running as `npm start` runs it, in a process of its own. */
export interface LocalHostProcess {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** Everything it printed. */
  output(): string;
  /** kill -9: no handler runs, nothing is saved on the way out. */
  kill(): Promise<void>;
  /** Ctrl+C: the host stops and saves. */
  stop(): Promise<void>;
}

/** Starts `node dist/src/runtime/local-host/main.js <args>` and waits for its banner. */
export async function startLocalHostProcess(
  args: string[],
  env: Record<string, string>,
): Promise<LocalHostProcess> {
  const child: ChildProcess = spawn(process.execPath, [ENTRY, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the local host did not start within 60 s:\n${output}`));
    }, 60_000);
    const check = () => {
      const match = /Provisioning service local host: (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(
        output,
      );
      // The banner ends with how to stop it.
      if (match !== null && output.includes('Press Ctrl+C')) {
        clearTimeout(timeout);
        resolve(match[1]!);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timeout);
      reject(new Error(`the local host exited (${String(code)}) before it started:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
