import { runFaultSuite } from './fault-suite';
import { BEYOND_WINDOW_RUN, FULL_RUN } from './profiles';
import { faultTotal, formatFaultReport, meetsTargets } from './report';

/**
 * `npm run faults`: the full fault suite (>= 300 requests, >= 1,000 faults) and the run
 * with lag beyond 30 s; prints both tables and exits non-zero when a target is missed.
 * `FAULT_SEED` picks another seed.
 */
async function main(): Promise<void> {
  const seed =
    process.env.FAULT_SEED === undefined ? FULL_RUN.seed : Number(process.env.FAULT_SEED);
  const trace = process.env.FAULT_TRACE === '1' ? (line: string) => console.log(line) : undefined;
  const full = await runFaultSuite({
    ...FULL_RUN,
    seed,
    ...(trace === undefined ? {} : { trace }),
  });
  formatFaultReport(
    full,
    `Fault suite, seed ${seed}, clock x${FULL_RUN.scale}, reads lag 0-25 s`,
  ).forEach((line) => console.log(line));
  const faults = full.tallies.reduce((sum, tally) => sum + faultTotal(tally), 0);
  console.log(`faults injected in all: ${faults}`);
  console.log('');
  const beyond = await runFaultSuite(BEYOND_WINDOW_RUN);
  formatFaultReport(
    beyond,
    'Reads lag 36-45 s (beyond the 30 s window): failures must name the groups',
  ).forEach((line) => console.log(line));
  const beyondOk =
    beyond.tallies.every((t) => t.expectedLagFailures === t.requests - t.succeeded) &&
    meetsTargets(beyond);
  if (!meetsTargets(full) || !beyondOk) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
