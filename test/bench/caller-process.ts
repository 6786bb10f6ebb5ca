import { BulkQueue } from '../../src/store/bulk-queue';

/**
 * Messages on their way at once, as a client's connection pool would send them. Not all
 * 1,000 at once: the storage SDK's agent has no socket limit, so that opened 1,000
 * connections to the one Azurite process, whose CPU the service's own storage calls share
 * here (a storage account in Azure serves both apart), and the service's first polls and
 * deletes waited behind the whole flood (measured: its first target call 13 to 16 s into a
 * run at a load average of 24, against 2 to 5 s with 32 senders).
 */
const SENDERS = 32;

/**
 * The governance workflow in a process of its own: it sends the benchmark's bulk requests
 * to the queue, so that their CPU is not counted as the service's. Talks to the benchmark
 * over IPC: `{ command: 'send', queue, messages }` answers `{ sent }` once every message is
 * on the queue.
 */
function main(): void {
  const connectionString = process.argv[2]!;
  process.on('message', (message: { command: string; queue?: string; messages?: unknown[] }) => {
    if (message.command === 'send') {
      const bulk = BulkQueue.connect(
        { kind: 'connectionString', connectionString },
        message.queue!,
      );
      const bodies = message.messages ?? [];
      let next = 0;
      const sender = async () => {
        while (next < bodies.length) await bulk.send(bodies[next++]);
      };
      void Promise.all(Array.from({ length: SENDERS }, sender)).then(
        () => process.send?.({ sent: message.messages?.length ?? 0 }),
        (error: unknown) => {
          console.error(error instanceof Error ? error.message : String(error));
          process.exit(1);
        },
      );
    }
    if (message.command === 'close') process.exit(0);
  });
  process.send?.({ ready: {} });
}

main();
