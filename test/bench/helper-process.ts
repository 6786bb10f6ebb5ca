import { fork } from 'node:child_process';
import { join } from 'node:path';

/** A benchmark's helper process (targets, storage): its settings at start, its counts on demand. */
export interface HelperProcess<Ready, Counts> {
  ready: Ready;
  counts(): Promise<Counts>;
  /** Sends a command of the helper's own and waits for its `{ done }`. */
  command(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forks `file` (compiled, beside this module) and waits for its `{ ready }` message. The
 * helper answers `{ command: 'counts' }` with `{ counts }` and exits on `{ command: 'close' }`.
 */
export async function startHelperProcess<Ready, Counts>(
  file: string,
  args: string[] = [],
): Promise<HelperProcess<Ready, Counts>> {
  const child = fork(join(__dirname, file), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { ready: Ready }) => resolve(message.ready));
  });
  return {
    ready,
    counts: () =>
      new Promise<Counts>((resolve) => {
        child.once('message', (message: { counts: Counts }) => resolve(message.counts));
        child.send({ command: 'counts' });
      }),
    command: (name) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send({ command: name });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ command: 'close' });
      }),
  };
}
