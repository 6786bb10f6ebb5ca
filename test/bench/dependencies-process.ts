import { fork } from 'node:child_process';
import { join } from 'node:path';

/** What the dependencies' process (service-dependencies.ts) says it started. */
export interface Ready {
  settings: unknown[];
  secrets: Record<string, string>;
  trustedCa: Record<string, string>;
  connectionString: string;
}

/** Requests the targets have served so far (Graph: token requests included). */
export interface TargetCounts {
  scim: number;
  graph: number;
  /** Graph pages of groups/delta and users/delta, outside `$batch`. */
  graphGroupDelta: number;
  graphUserDelta: number;
  cpuMs: number;
}

/** Forks the dependencies' process (sandboxes at `latencyMs`, Azurite) and waits for its settings. */
export async function startDependencies(latencyMs: number) {
  const child = fork(join(__dirname, 'service-dependencies.js'), [String(latencyMs)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { ready: Ready }) => resolve(message.ready));
  });
  /** Sends a command and answers the field `reply` of the next message that has it. */
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
    counts: () => ask<TargetCounts>({ command: 'counts' }, 'counts'),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ command: 'close' });
      }),
  };
}
