import { startAzurite } from '../../src/runtime/local-host/azurite';

/**
 * Azurite (tables and queues) in a process of its own, as remote storage would be: the
 * service benchmark reports its CPU apart from the targets'. Talks to the benchmark over
 * IPC: the connection string at start, its CPU on demand.
 */
async function main(): Promise<void> {
  const azurite = await startAzurite();
  process.on('message', (message: { command: string }) => {
    if (message.command === 'counts') {
      const usage = process.cpuUsage();
      process.send?.({ counts: { cpuMs: (usage.user + usage.system) / 1000 } });
    }
    if (message.command === 'close') void azurite.close().then(() => process.exit(0));
  });
  process.send?.({ ready: { connectionString: azurite.connectionString } });
}

void main();
