import { BulkQueue } from '../../src/store/bulk-queue';

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
      void Promise.all((message.messages ?? []).map((body) => bulk.send(body))).then(
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
