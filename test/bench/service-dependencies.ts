import { startAzurite } from '../../src/runtime/local-host/azurite';
import { startSandboxConnectors } from '../../src/runtime/sandbox-connectors';

/**
 * The service benchmark's dependencies in a process of their own, as they would be in
 * Azure (remote targets, remote storage): both sandboxes and Azurite. Talks to the
 * benchmark over IPC: the settings at start, request counts on demand.
 */
async function main(): Promise<void> {
  const latencyMs = Number(process.argv[2] ?? 20);
  const sandboxes = await startSandboxConnectors({ latencyMs });
  const azurite = await startAzurite();
  const counts = () => ({
    scim: sandboxes.scim.requests.length,
    graph: sandboxes.graph.stats.graphRequests + sandboxes.graph.stats.tokenRequests,
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  });
  process.on('message', (message: { command: string }) => {
    if (message.command === 'counts') process.send?.({ counts: counts() });
    if (message.command === 'close') {
      void Promise.all([sandboxes.close(), azurite.close()]).then(() => process.exit(0));
    }
  });
  process.send?.({
    ready: {
      settings: sandboxes.settings,
      secrets: sandboxes.secrets,
      trustedCa: sandboxes.trustedCa,
      connectionString: azurite.connectionString,
    },
  });
}

void main();
