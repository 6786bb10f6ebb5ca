type Bench = (print: (line: string) => void) => Promise<void>;

/**
 * Each benchmark is loaded when it runs: a bench measures its own process's memory, and the
 * console bench's browser driver alone (playwright-core) holds about 40 MB of heap that is
 * not the service's.
 */
const BENCHES: Record<string, () => Promise<Bench>> = {
  scim: async () => (await import('./scim-bench.js')).runScimBench,
  graph: async () => (await import('./graph-bench.js')).runGraphBench,
  service: async () => (await import('./service-bench.js')).runServiceBench,
  catalogue: async () => (await import('./catalogue-bench.js')).runCatalogueBench,
  console: async () => (await import('./console-bench.js')).runConsoleBench,
  drift: async () => (await import('./drift-bench.js')).runDriftBench,
  quota: async () => (await import('./quota-bench.js')).runQuotaBench,
  'big-groups': async () => (await import('./big-groups-bench.js')).runBigGroupsBench,
  driver: async () => (await import('./driver-bench.js')).runDriverBench,
};

async function main(names: string[]): Promise<void> {
  const selected = names.length === 0 ? Object.keys(BENCHES) : names;
  for (const name of selected) {
    const load = BENCHES[name];
    if (load === undefined)
      throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    const bench = await load();
    await bench((line) => console.log(line));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
