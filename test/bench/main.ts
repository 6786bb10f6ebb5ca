import { runCatalogueBench } from './catalogue-bench';
import { runConsoleBench } from './console-bench';
import { runDriftBench } from './drift-bench';
import { runBigGroupsBench } from './big-groups-bench';
import { runGraphBench } from './graph-bench';
import { runQuotaBench } from './quota-bench';
import { runScimBench } from './scim-bench';
import { runServiceBench } from './service-bench';

const BENCHES: Record<string, (print: (line: string) => void) => Promise<void>> = {
  scim: runScimBench,
  graph: runGraphBench,
  service: runServiceBench,
  catalogue: runCatalogueBench,
  console: runConsoleBench,
  drift: runDriftBench,
  quota: runQuotaBench,
  'big-groups': runBigGroupsBench,
};

async function main(names: string[]): Promise<void> {
  const selected = names.length === 0 ? Object.keys(BENCHES) : names;
  for (const name of selected) {
    const bench = BENCHES[name];
    if (bench === undefined)
      throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    await bench((line) => console.log(line));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
