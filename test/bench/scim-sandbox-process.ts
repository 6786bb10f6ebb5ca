import { startScimSandbox, type ScimQuirks } from '../../src/sandbox/scim';

/**
 * The SCIM sandbox in a child process of its own, so that the benchmark measures the
 * client's memory and CPU, not the server's. Talks to the parent over IPC.
 */
type Message =
  | {
      type: 'start';
      token: string;
      quirks: ScimQuirks;
      groups: number;
      /** Groups seeded with this many members each (big-group benchmarks). */
      memberCounts?: number[];
    }
  | { type: 'count' }
  | { type: 'stop' };

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

let sandbox: Awaited<ReturnType<typeof startScimSandbox>> | undefined;

process.on('message', (message: Message) => {
  void (async () => {
    switch (message.type) {
      case 'start': {
        sandbox = await startScimSandbox({
          auth: { type: 'bearer', token: message.token },
          quirks: message.quirks,
        });
        const groups = sandbox.seedGroups(
          Array.from({ length: message.groups }, (_, i) => ({
            displayName: `Group ${String(i).padStart(5, '0')}`,
          })),
        );
        const populated = sandbox.seedGroups(
          (message.memberCounts ?? []).map((count, g) => ({
            displayName: `Populated ${g}`,
            members: Array.from({ length: count }, (_, i) => `member.${g}.${i}`),
          })),
        );
        sandbox.clearRequests();
        process.send?.({
          type: 'started',
          baseUrl: sandbox.baseUrl,
          groupIds: groups.slice(0, 100).map((g) => g.id),
          populatedIds: populated.map((g) => g.id),
        });
        break;
      }
      case 'count':
        process.send?.({
          type: 'count',
          requests: sandbox?.requests.length ?? 0,
          bytes: sandbox?.bytesServed ?? 0,
          cpuMs: cpuMs(),
        });
        sandbox?.clearRequests();
        break;
      case 'stop':
        await sandbox?.close();
        process.exit(0);
    }
  })();
});
