import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/domain/logger';
import { QueuePoller } from '../../../src/runtime/local-host/queue-poller';
import { BulkQueue } from '../../../src/store/bulk-queue';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';
import { until as pollUntil } from '../../support/poll-until';

let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
});
afterAll(() => storage.close());

/** Resolves once `condition` holds, polling every 10 ms; fails the test after 10 s. */
function until(condition: () => boolean, what: string): Promise<true> {
  return pollUntil(what, () => (condition() ? true : undefined), {
    timeoutMs: 10_000,
    everyMs: 10,
  });
}

/** Waits a little and checks `condition` still holds (nothing more started meanwhile). */
async function stays(condition: () => boolean): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return condition();
}

describe('QueuePoller', () => {
  it('fetches the next batch once 8 of 16 are in hand, not after the whole batch, and handles each message once', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-batches');
    for (let n = 0; n < 40; n++) await queue.send({ n });
    const started: number[] = [];
    const releases: (() => void)[] = [];
    let draining = false;
    const poller = new QueuePoller(
      queue,
      async (message) => {
        started.push((message as { n: number }).n);
        if (!draining) await new Promise<void>((resolve) => releases.push(resolve));
      },
      { intervalMs: 20, visibilityTimeoutSeconds: 60, batchSize: 16, logger: silentLogger },
    );
    let released = 0;
    const release = (count: number) => {
      for (let i = 0; i < count; i++) releases[released++]!();
    };
    poller.start();
    try {
      await until(() => started.length === 16, 'the first batch');
      // 9 in hand: above the threshold, so no new batch yet.
      release(7);
      expect(await stays(() => started.length === 16)).toBe(true);
      // 8 in hand: the next batch comes while those 8 are still being handled.
      release(1);
      await until(() => started.length === 32, 'the second batch');
      expect(started.length - released).toBe(24);
      expect(await stays(() => started.length === 32)).toBe(true);
      // The rest, as slots free up, until all 40 are handled.
      while (released < 40) {
        await until(() => releases.length > released, 'a message to release');
        release(releases.length - released);
      }
    } finally {
      draining = true;
      for (const resolve of releases) resolve();
      await poller.stop();
    }
    expect([...started].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(await queue.backlog()).toEqual({ requests: 0, poison: 0 });
  });

  it('waits between empty polls, and handles a message sent meanwhile', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-idle');
    const { counted, polls } = countingPolls(queue);
    const handled: unknown[] = [];
    const poller = new QueuePoller(counted, async (message) => void handled.push(message), {
      intervalMs: 200,
      visibilityTimeoutSeconds: 60,
      batchSize: 16,
      logger: silentLogger,
    });
    poller.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(polls()).toBeGreaterThanOrEqual(2);
      expect(polls()).toBeLessThanOrEqual(5);
      await queue.send({ late: true });
      await until(() => handled.length === 1, 'the late message');
      expect(handled).toEqual([{ late: true }]);
    } finally {
      await poller.stop();
    }
  });

  it('backs off while the queue stays empty, up to its longest pause, and starts over on a message', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-backoff');
    const { counted, polls } = countingPolls(queue);
    const handled: unknown[] = [];
    const poller = new QueuePoller(counted, async (message) => void handled.push(message), {
      intervalMs: 10,
      maxIntervalMs: 160,
      visibilityTimeoutSeconds: 60,
      batchSize: 16,
      logger: silentLogger,
    });
    poller.start();
    try {
      // Pauses 10, 20, 40, 80, 160, 160, ... : about 9 polls in 1 s, where a flat 10 ms
      // would poll about 70 times (Azurite answering in a few ms).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(polls()).toBeGreaterThanOrEqual(6);
      expect(polls()).toBeLessThanOrEqual(14);
      // A message after the back-off waits at most the longest pause.
      await queue.send({ first: true });
      await until(() => handled.length === 1, 'the first message');
      // Found: the pause starts over at 10 ms (polls after about 10, 30, 70 and 150 ms); kept
      // at 160 ms it would poll at most twice in the next 300 ms.
      const before = polls();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(polls() - before).toBeGreaterThanOrEqual(3);
      // And it backs off again: about 9 polls in the idle second, not a flat 10 ms's 70.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(polls() - before).toBeLessThanOrEqual(14);
    } finally {
      await poller.stop();
    }
  });
});

/** The queue, with the polls it answers counted. */
function countingPolls(queue: BulkQueue) {
  let polls = 0;
  const counted = new Proxy(queue, {
    get(target, property, receiver) {
      if (property === 'receive') {
        return (max: number, visibility: number) => {
          polls += 1;
          return target.receive(max, visibility);
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { counted, polls: () => polls };
}
