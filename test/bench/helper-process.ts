import { fork } from 'node:child_process';
import { basename, join } from 'node:path';

/** A benchmark's helper process (targets, storage): its settings at start, its counts on demand. */
export interface HelperProcess<Ready, Counts> {
  ready: Ready;
  counts(): Promise<Counts>;
  /** Sends a command and answers the field `reply` of the next message that has it. */
  ask<T>(command: Record<string, unknown>, reply: string): Promise<T>;
  /** Sends a command of the helper's own and waits for its `{ done }`. */
  command(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forks `file` (compiled, beside this module) and waits for its `{ ready }` message. The
 * helper answers `{ command: 'counts' }` with `{ counts }` and exits on `{ command: 'close' }`.
 * With `BENCH_HELPER_CPU_PROF_DIR` set, each helper writes a V8 CPU profile at exit into a
 * folder of its own there (`<dir>/storage-process/...cpuprofile`), to see where its CPU goes.
 */
export async function startHelperProcess<Ready, Counts>(
  file: string,
  args: string[] = [],
): Promise<HelperProcess<Ready, Counts>> {
  const profileDir = process.env.BENCH_HELPER_CPU_PROF_DIR;
  const child = fork(join(__dirname, file), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv:
      profileDir === undefined || profileDir === ''
        ? process.execArgv
        : [
            ...process.execArgv,
            '--cpu-prof',
            `--cpu-prof-dir=${join(profileDir, basename(file, '.js'))}`,
          ],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { ready: Ready }) => resolve(message.ready));
  });
  const ask = <T>(command: Record<string, unknown>, reply: string) =>
    new Promise<T>((resolve) => {
      const listen = (message: Record<string, unknown>) => {
        if (!(reply in message)) return;
        child.off('message', listen);
        resolve(message[reply] as T);
      };
      child.on('message', listen);
      child.send(command);
    });
  return {
    ready,
    ask,
    counts: () => ask<Counts>({ command: 'counts' }, 'counts'),
    command: (name) => ask<void>({ command: name }, 'done'),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ command: 'close' });
      }),
  };
}
