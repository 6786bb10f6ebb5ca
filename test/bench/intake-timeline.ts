import type { LocalHost } from '../../src/runtime/local-host/local-host';
import type { HelperProcess } from './helper-process';
import type { TargetCounts } from './bench-host';

/**
 * The service bench's timeline (`BENCH_TIMELINE=1`), to see where its first seconds go:
 * sampled every 250 ms from the start of the measured run, the targets' calls, the
 * requests submitted and started, the activities begun, the service's CPU, and each poll
 * of the bulk queue (when, how many messages, how long). Diagnostic only: it wraps the
 * host's objects as they are, which costs the service a little CPU itself.
 */
export function startIntakeTimeline(
  host: LocalHost,
  targets: HelperProcess<unknown, TargetCounts>,
): { sent(ms: number): void; stop(): string[] } {
  const started = performance.now();
  const at = () => performance.now() - started;
  const polls: string[] = [];
  let submitted = 0;
  let orchestrations = 0;
  let activities = 0;
  const queue = host.services.bulkQueue;
  const receive = queue.receive.bind(queue);
  queue.receive = async (max, visibility) => {
    const from = at();
    const messages = await receive(max, visibility);
    if (messages.length > 0 || polls.length < 40)
      polls.push(`${from.toFixed(0)}+${(at() - from).toFixed(0)}:${messages.length}`);
    return messages;
  };
  const driver = host.driver;
  const startNew = driver.startNew.bind(driver);
  driver.startNew = async (name, id, input) => {
    submitted += 1;
    const outcome = await startNew(name, id, input);
    orchestrations += 1;
    return outcome;
  };
  const runner = (driver as unknown as { runner: { enqueue(job: unknown): void } }).runner;
  const enqueue = runner.enqueue.bind(runner);
  runner.enqueue = (job) => {
    activities += 1;
    enqueue(job);
  };
  const rows: string[] = ['t(ms) scim graph startNew started activities cpu(ms)'];
  let cpu = process.cpuUsage();
  const base = targets.counts();
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    const t = at();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const counts = { submitted, orchestrations, activities };
    sampling = sampling.then(async () => {
      const [b, c] = await Promise.all([base, targets.counts()]);
      rows.push(
        `${t.toFixed(0)} ${c.scim - b.scim} ${c.graph - b.graph} ${counts.submitted} ${counts.orchestrations} ${counts.activities} ${((used.user + used.system) / 1000).toFixed(0)}`,
      );
    });
  }, 250);
  let sentAt = '';
  const origin = `origin ${(process.hrtime.bigint() / 1000n).toString()} us (monotonic)`;
  return {
    sent: (ms) => void (sentAt = `caller: every message on the queue at ${ms.toFixed(0)} ms`),
    stop: () => {
      clearInterval(timer);
      return [origin, sentAt, `polls (start+duration:messages): ${polls.join(' ')}`, ...rows];
    },
  };
}
