import { runFaultSuite, type FaultSuiteOptions } from './fault-suite';
import { BEYOND_WINDOW_RUN, FULL_RUN, SMALL_RUN } from './profiles';
import { faultTotal, formatFaultReport, meetsTargets } from './report';

const print = (line: string) => void process.stdout.write(`${line}\n`);

/** Soak driver (not for landing): one run with size and profile from the environment. */
async function main(): Promise<void> {
  const env = process.env;
  const profile = env.SOAK_PROFILE ?? 'small';
  const base: FaultSuiteOptions =
    profile === 'full' ? FULL_RUN : profile === 'beyond' ? BEYOND_WINDOW_RUN : SMALL_RUN;
  const num = (name: string, fallback: number) =>
    env[name] === undefined ? fallback : Number(env[name]);
  const options: FaultSuiteOptions = {
    ...base,
    seed: num('SOAK_SEED', base.seed),
    accountsPerConnector: num('SOAK_ACCOUNTS', base.accountsPerConnector),
    batches: [num('SOAK_BMIN', base.batches[0]), num('SOAK_BMAX', base.batches[1])],
    scale: num('SOAK_SCALE', base.scale),
    parallelAccounts: num('SOAK_PAR', base.parallelAccounts),
    ...(env.SOAK_CONNECTORS === undefined ? {} : { connectors: env.SOAK_CONNECTORS.split(',') }),
    ...(env.SOAK_LAGMAX === undefined
      ? {}
      : { lagMs: { min: base.lagMs.min, max: Number(env.SOAK_LAGMAX) } }),
    ...(env.SOAK_CONC === undefined ? {} : { concurrentShare: Number(env.SOAK_CONC) }),
    ...(env.SOAK_QUEUE === undefined ? {} : { queueShare: Number(env.SOAK_QUEUE) }),
    ...(env.FAULT_TRACE === '1' ? { trace: (line: string) => print(line) } : {}),
  };
  print(
    `soak profile=${profile} seed=${options.seed} accounts=${options.accountsPerConnector} ` +
      `batches=${options.batches.join('-')} scale=${options.scale} par=${options.parallelAccounts} ` +
      `lag=${options.lagMs.min}-${options.lagMs.max} conc=${options.concurrentShare} queue=${options.queueShare} ` +
      `connectors=${(options.connectors ?? ['all']).join(',')}`,
  );
  const result = await runFaultSuite(options);
  formatFaultReport(result, `soak ${profile} seed ${options.seed}`).forEach((l) => print(l));
  const faults = result.tallies.reduce((sum, tally) => sum + faultTotal(tally), 0);
  print(`faults injected in all: ${faults}`);
  const ok =
    profile === 'beyond'
      ? result.tallies.every((t) => t.expectedLagFailures === t.requests - t.succeeded) &&
        meetsTargets(result)
      : meetsTargets(result);
  print(ok ? 'VERDICT CLEAN' : 'VERDICT FINDINGS');
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  print(error instanceof Error ? (error.stack ?? error.message) : String(error));
  print('VERDICT CRASH');
  process.exitCode = 2;
});
