import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/domain/logger';
import { HOST_MAX_DEQUEUE_COUNT } from '../../../src/api/bulk-request-handler';
import { QueuePoller } from '../../../src/runtime/local-host/queue-poller';
import { BulkQueue } from '../../../src/store/bulk-queue';
import { queueClient } from '../../../src/store/storage-clients';
import { expectNoSecrets } from '../../support/no-secrets';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/*
 * Nothing here is judged by wall time: the batches by the polls and deletes the queue
 * answered, the pauses on a fake setTimeout that moves only when the test moves it (Azurite
 * still answers over a real socket, awaited as events).
 */

let storage: TestStorage;

beforeAll(async () => {
  storage = await startTestStorage();
});
afterAll(() => storage.close());
afterEach(() => {
  vi.useRealTimers();
});

/** Lets pending promise callbacks and I/O callbacks run (a real macrotask, whatever the timers). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits three poll intervals of the batching test (20 ms) in real time: a poll the poller
 * should not make would have been made by then. A longer wait only makes the check stricter.
 */
const quiet = () => new Promise<void>((resolve) => setTimeout(resolve, 60));

/**
 * Resolves once `condition` holds, checking after each macrotask; fails naming `what` after
 * 10 s of real time (it never needs a timer, so it works under fake timers too).
 */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await settle();
  }
}

describe('QueuePoller', () => {
  it('fetches the next batch once 8 of 16 are in hand, not after the whole batch, and handles each message once', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-batches');
    for (let n = 0; n < 40; n++) await queue.send({ n });
    const counted = countingQueue(queue);
    const started: number[] = [];
    const releases: (() => void)[] = [];
    let draining = false;
    const poller = new QueuePoller(
      counted.queue,
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
      // 9 in hand once the 7 are handled and deleted: above the threshold, so no new poll.
      release(7);
      await until(() => counted.deleted() === 7, 'the 7 released messages deleted');
      await quiet();
      expect(counted.polls()).toBe(1);
      expect(started).toHaveLength(16);
      // 8 in hand: the next batch comes while those 8 are still being handled.
      release(1);
      await until(() => started.length === 32, 'the second batch');
      expect(started.length - released).toBe(24);
      // 24 in hand once the second poll has answered: no third poll until some are handled.
      await until(() => counted.inFlight() === 0, 'the second poll to answer');
      await quiet();
      expect(counted.polls()).toBe(2);
      expect(started).toHaveLength(32);
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

  it('takes nothing in while the host does not admit more: the messages stay on the queue, visible, and are each handled once admitted', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-admit');
    for (let n = 0; n < 20; n++) await queue.send({ n });
    const counted = countingQueue(queue);
    const handled: number[] = [];
    let admitted = false;
    let admit: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (admit = resolve));
    let asked = 0;
    const poller = new QueuePoller(
      counted.queue,
      async (message) => void handled.push((message as { n: number }).n),
      {
        intervalMs: 20,
        visibilityTimeoutSeconds: 60,
        batchSize: 16,
        logger: silentLogger,
        admit: () => {
          asked += 1;
          return admitted ? Promise.resolve() : gate;
        },
      },
    );
    poller.start();
    try {
      await until(() => asked === 1, 'the poller to ask');
      await quiet();
      expect(counted.polls()).toBe(0);
      // Not taken: all 20 visible to any other taker (a peek sees only visible messages).
      const peeked = await queueClient(storage.connection, 'poller-admit').peekMessages({
        numberOfMessages: 32,
      });
      expect(peeked.peekedMessageItems).toHaveLength(20);
      admitted = true;
      admit();
      await until(() => handled.length === 20, 'all 20 handled');
      await until(() => counted.deleted() === 20, 'all 20 deleted');
    } finally {
      await poller.stop();
    }
    expect([...handled].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(await queue.backlog()).toEqual({ requests: 0, poison: 0 });
  });

  it('stops while it waits to be admitted', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-admit-stop');
    const counted = countingQueue(queue);
    const poller = new QueuePoller(counted.queue, async () => undefined, {
      intervalMs: 20,
      visibilityTimeoutSeconds: 60,
      batchSize: 16,
      logger: silentLogger,
      admit: () => new Promise<void>(() => undefined),
    });
    poller.start();
    await quiet();
    await poller.stop();
    expect(counted.polls()).toBe(0);
  });

  it('waits between empty polls, and handles a message sent meanwhile', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-idle');
    const counted = countingQueue(queue);
    const handled: unknown[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const poller = new QueuePoller(counted.queue, async (message) => void handled.push(message), {
      intervalMs: 200,
      visibilityTimeoutSeconds: 60,
      batchSize: 16,
      logger: silentLogger,
    });
    poller.start();
    try {
      // Without a back-off, every pause after an empty poll is the interval, not less.
      await runUntilPolls(counted, 4);
      expect(pauses(counted)).toEqual([200, 200, 200]);
      await queue.send({ late: true });
      await runUntilPolls(counted, 5);
      await until(() => handled.length === 1, 'the late message');
      // The fifth poll, which found it, came a whole interval after the fourth.
      expect(pauses(counted)[3]).toBe(200);
      expect(handled).toEqual([{ late: true }]);
    } finally {
      await poller.stop();
    }
  });

  it('backs off while the queue stays empty, up to its longest pause, and starts over on a message', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-backoff');
    const counted = countingQueue(queue);
    const handled: unknown[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const poller = new QueuePoller(counted.queue, async (message) => void handled.push(message), {
      intervalMs: 10,
      maxIntervalMs: 160,
      visibilityTimeoutSeconds: 60,
      batchSize: 16,
      logger: silentLogger,
    });
    poller.start();
    try {
      // Each empty poll doubles the pause, up to the longest: 7 pauses of 630 ms in all,
      // where a flat 10 ms would have polled 63 times.
      await runUntilPolls(counted, 8);
      expect(pauses(counted)).toEqual([10, 20, 40, 80, 160, 160, 160]);
      // A message after the back-off waits at most the longest pause.
      await queue.send({ first: true });
      await runUntilPolls(counted, 9);
      await until(() => handled.length === 1, 'the first message');
      // The ninth poll found it, 160 ms after the eighth; then it polls again at once, and
      // the pause starts over at 10 ms and backs off again.
      await runUntilPolls(counted, 15);
      expect(pauses(counted).slice(7, 14)).toEqual([160, 0, 10, 20, 40, 80, 160]);
    } finally {
      await poller.stop();
    }
  });
});

describe('QueuePoller: a message that outlasts its visibility or its takers', () => {
  it('keeps a message hidden while a handler slower than the visibility timeout runs: handled once', async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-slow');
    await queue.send({ slow: true });
    const deliveries: unknown[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const poller = new QueuePoller(
      queue,
      async (message) => {
        deliveries.push(message);
        await released;
      },
      // Hidden 1 s at a time, polled every 20 ms: without extensions the message is
      // visible again after 1 s and handed out a second time while the first still runs.
      { intervalMs: 20, visibilityTimeoutSeconds: 1, batchSize: 16, logger: silentLogger },
    );
    poller.start();
    try {
      await until(() => deliveries.length === 1, 'the first delivery');
      // Three visibility timeouts of real time while the handler runs.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(deliveries).toHaveLength(1);
    } finally {
      release();
      await poller.stop();
    }
    // Deleted with the pop receipt of the last extension: nothing is left in the queue.
    expect(await queue.backlog()).toEqual({ requests: 0, poison: 0 });
    expect(await queue.receive(1, 1)).toEqual([]);
  }, 30_000);

  it("moves a message dequeued more often than the host's limit to the poison queue whole, with its id and dequeue count, secrets redacted", async () => {
    const queue = BulkQueue.connect(storage.connection, 'poller-taken-often');
    const request = {
      requestId: 'taken-often-1',
      connector: 'scim-sandbox',
      account: { accountId: 'taken.often', attributes: { Password: 'Planted-Often-Pw-1' } },
      password: 'Planted-Often-Pw-2',
      actions: [{ type: 'revoke', groups: ['Payroll Admins'] }],
    };
    await queue.send(request);
    // Takers that stopped before they ended (a crash, a kill -9), as many as the host allows:
    // each dequeue counts.
    let messageId = '';
    for (let n = 0; n < HOST_MAX_DEQUEUE_COUNT; n++) {
      let [taken] = await queue.receive(1, 1);
      while (taken === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        [taken] = await queue.receive(1, 1);
      }
      expect(taken.dequeueCount).toBe(n + 1);
      messageId = taken.messageId;
    }
    const handled: unknown[] = [];
    let poisoned = 0;
    const poller = new QueuePoller(queue, async (message) => void handled.push(message), {
      intervalMs: 20,
      visibilityTimeoutSeconds: 5,
      batchSize: 16,
      logger: silentLogger,
      onPoisoned: () => void poisoned++,
    });
    poller.start();
    try {
      for (let i = 0; i < 400 && (await queue.backlog()).poison === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      await poller.stop();
    }
    expect(handled).toEqual([]);
    // Counted, as the handler counts what it gives up (the poison-messages alert).
    expect(poisoned).toBe(1);
    // The poison queue as stored: base64 of the record's JSON, read past BulkQueue.
    const raw = await queueClient(storage.connection, 'poller-taken-often-poison').peekMessages({
      numberOfMessages: 32,
    });
    const texts = raw.peekedMessageItems.map((item) =>
      Buffer.from(item.messageText, 'base64').toString('utf8'),
    );
    expect(texts).toHaveLength(1);
    expectNoSecrets(
      texts,
      { nested: 'Planted-Often-Pw-1', password: 'Planted-Often-Pw-2' },
      'the poison queue',
    );
    expect(JSON.parse(texts[0]!)).toEqual({
      reason: `dequeued ${HOST_MAX_DEQUEUE_COUNT + 1} times without being handled to the end`,
      message: {
        ...request,
        account: { accountId: 'taken.often', attributes: { Password: '[redacted]' } },
        password: '[redacted]',
      },
      messageId,
      dequeueCount: HOST_MAX_DEQUEUE_COUNT + 1,
      at: expect.any(String),
    });
    expect(await queue.backlog()).toEqual({ requests: 0, poison: 1 });
  }, 30_000);
});

/**
 * The queue, with each poll it was asked for (at the fake time the test has moved the clock
 * to), the polls not answered yet and the deletes done: the events the tests wait for
 * instead of wall time.
 */
function countingQueue(queue: BulkQueue) {
  const polledAt: number[] = [];
  const clock = { now: 0 };
  let inFlight = 0;
  let deleted = 0;
  const counted = new Proxy(queue, {
    get(target, property, receiver) {
      if (property === 'receive') {
        return (max: number, visibility: number) => {
          polledAt.push(clock.now);
          inFlight += 1;
          return target.receive(max, visibility).finally(() => (inFlight -= 1));
        };
      }
      if (property === 'delete') {
        return (messageId: string, popReceipt: string) =>
          target.delete(messageId, popReceipt).then(() => void (deleted += 1));
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return {
    queue: counted,
    clock,
    polledAt,
    polls: () => polledAt.length,
    inFlight: () => inFlight,
    deleted: () => deleted,
  };
}

/**
 * Under fake timers: moves the clock 1 ms at a time, never while a poll waits for its
 * answer, until the poller has asked for `polls` polls in all and had them answered.
 */
async function runUntilPolls(
  counted: ReturnType<typeof countingQueue>,
  polls: number,
): Promise<void> {
  for (;;) {
    await until(() => counted.inFlight() === 0, 'the last poll to answer');
    await settle();
    if (counted.inFlight() > 0) continue;
    if (counted.polls() >= polls) return;
    if (counted.clock.now > 60_000) throw new Error(`only ${counted.polls()} polls in 60 fake s`);
    counted.clock.now += 1;
    await vi.advanceTimersByTimeAsync(1);
  }
}

/** The fake milliseconds between each poll and the one before it. */
function pauses(counted: ReturnType<typeof countingQueue>): number[] {
  return counted.polledAt.slice(1).map((at, i) => at - counted.polledAt[i]!);
}
