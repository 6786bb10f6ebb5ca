import type { OrchestrationHandler } from 'durable-functions';
import { OrchestrationDriver } from '../../src/runtime/local-host/orchestration-driver';

const INSTANCES = Number(process.env.BENCH_DRIVER_INSTANCES ?? 1000);
const ROUNDS = 3;
const ACTIVITIES = 5;

/** An input about the size of a provisioning request's (500 to 1,000 characters of JSON). */
function payload(index: number, step: number) {
  return {
    requestId: `driver-${index}`,
    step,
    account: {
      accountId: `user${index}`,
      attributes: Object.fromEntries(
        Array.from({ length: 12 }, (_, k) => [`a${k}`, `value-${k}-${index}`]),
      ),
    },
    groups: ['Engineering', 'Sales', 'Finance'],
  };
}

/**
 * The shape of a create + 3 grants on SCIM: activities one after another, each input and
 * result a few hundred characters, the custom status set after each.
 */
const sequence: OrchestrationHandler = function* (context) {
  const input = context.df.getInput<{ requestId: string }>();
  const steps = Array.from({ length: 3 }, (_, index) => ({
    index,
    state: 'pending',
    changes: [] as { group: string; at: string }[],
  }));
  const report = { requestId: input.requestId, steps };
  context.df.setCustomStatus(report);
  let last: unknown;
  for (let step = 0; step < ACTIVITIES; step += 1) {
    last = yield context.df.callActivity(`work${step % 3}`, { ...payload(0, step), last });
    const at = context.df.currentUtcDateTime.toISOString();
    steps[step % 3] = { index: step % 3, state: 'succeeded', changes: [{ group: `g${step}`, at }] };
    context.df.setCustomStatus(report);
  }
  return report;
};

async function work(input: unknown) {
  const { step } = input as { step: number };
  return { ok: true, id: `id-${step}`, items: Array.from({ length: 8 }, (_, k) => `item-${k}`) };
}

/**
 * The local driver's own CPU (issue 15): orchestrations of 5 activities answered at once
 * in-process, no storage, no history store, so what is measured is the driver and the
 * replays through durable-functions' executor. A yardstick that a loaded machine disturbs
 * less than the service bench: no other process, CPU time not wall time.
 */
export async function runDriverBench(print: (line: string) => void): Promise<void> {
  const driver = new OrchestrationDriver({
    orchestrators: { sequence },
    activities: { work0: work, work1: work, work2: work },
  });
  const round = async (tag: string, count: number): Promise<number> => {
    const before = process.cpuUsage();
    await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const id = `${tag}-${index}`;
        await driver.startNew('sequence', id, payload(index, 0));
        return driver.waitFor(id, 600_000);
      }),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / count;
  };
  try {
    await round('warm-up', Math.min(INSTANCES, 300));
    const perInstance: number[] = [];
    for (let index = 0; index < ROUNDS; index += 1)
      perInstance.push(await round(`round${index}`, INSTANCES));
    const sorted = [...perInstance].sort((a, b) => a - b);
    print(
      `driver: ${INSTANCES} orchestrations of ${ACTIVITIES} activities each (answered in-process), ${ROUNDS} rounds`,
    );
    print(
      `  cpu per orchestration: min ${sorted[0]!.toFixed(3)} ms, median ${sorted[1]!.toFixed(3)} ms (${perInstance.map((ms) => ms.toFixed(3)).join(', ')})`,
    );
  } finally {
    await driver.close();
  }
}
