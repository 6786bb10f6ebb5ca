import { InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import {
  bulkRequestHandler,
  HOST_MAX_DEQUEUE_COUNT,
  MAX_DEQUEUE_COUNT,
} from '../../../src/api/bulk-request-handler';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import type { PoisonRecord } from '../../../src/store/bulk-queue';
import type { OrchestrationClient } from '../../../src/workflows/orchestration-client';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';

const message = {
  requestId: 'bulk-1',
  connector: 'hr',
  account: { accountId: 'ada' },
  password: 'Planted-Queue-Pw-1',
  actions: [{ type: 'create' }],
};

/** A handler whose orchestration client is down: every start fails as a transient fault would. */
function setUp(poisonQueue: { down: boolean } = { down: false }) {
  const poisoned: PoisonRecord[] = [];
  const logs: string[] = [];
  const poisonReasons: string[] = [];
  const secrets = new LocalSecretStore();
  const services = {
    registry: {
      settings: (name: string) => (name === 'hr' ? { name } : undefined),
      get: () => ({
        capabilities: {
          visibilityWindowMs: 0,
          membershipReadScope: 'named',
          membershipWriteBatchSize: 1,
          membershipWritesSayIfInPlace: false,
        },
      }),
    },
    secrets,
    bulkQueue: {
      sendPoison: async (record: PoisonRecord) => {
        if (poisonQueue.down) throw new Error('poison queue unavailable');
        poisoned.push(record);
      },
    },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    metrics: { bulkPoisoned: (reason: string) => void poisonReasons.push(reason) },
  } as unknown as WorkflowServices;
  const orchestrations: OrchestrationClient = {
    startNew: async () => {
      throw new Error('task hub unavailable');
    },
    getStatus: async () => undefined,
  };
  const handler = bulkRequestHandler({
    services: async () => services,
    orchestrations: () => orchestrations,
    now: () => new Date('2026-11-22T10:00:00Z'),
  });
  const deliver = (dequeueCount: number) =>
    handler(
      message,
      new InvocationContext({
        triggerMetadata: { dequeueCount, id: 'm-9' },
        logHandler: (level, ...args) => void logs.push(`${level} ${args.map(String).join(' ')}`),
      }),
    );
  return { poisoned, poisonReasons, deliver, secrets, logs };
}

describe('bulk queue trigger: a message that keeps failing', () => {
  it('is retried by the runtime until its fifth dequeue, then poisoned with the last failure as reason', async () => {
    const { poisoned, poisonReasons, deliver, secrets } = setUp();
    for (let dequeue = 1; dequeue < MAX_DEQUEUE_COUNT; dequeue++) {
      await expect(deliver(dequeue)).rejects.toThrow('task hub unavailable');
    }
    expect(poisoned).toEqual([]);
    expect(poisonReasons).toEqual([]);
    await deliver(MAX_DEQUEUE_COUNT);
    expect(poisonReasons).toEqual(['failed_repeatedly']);
    expect(poisoned).toEqual([
      {
        reason: 'failed 5 times, last: task hub unavailable',
        message: { ...message, requestId: 'bulk-1', password: '[redacted]' },
        messageId: 'm-9',
        dequeueCount: 5,
        at: '2026-11-22T10:00:00.000Z',
      },
    ]);
    // Each attempt stored the password under a fresh name; none is left behind.
    expect((secrets as unknown as { values: Map<string, string> }).values.size).toBe(0);
  });

  it("at its limit with the poison queue failing, tries the redacted copy until the host's last dequeue and never drops the message", async () => {
    const poisonQueue = { down: true };
    const { poisoned, deliver, logs } = setUp(poisonQueue);
    // The host's limit is above the handler's: the message is delivered again for another try.
    for (let dequeue = MAX_DEQUEUE_COUNT; dequeue < HOST_MAX_DEQUEUE_COUNT; dequeue++) {
      await expect(deliver(dequeue)).rejects.toThrow('poison copy not sent; delivered again');
    }
    // The host's last dequeue: still thrown, so the host keeps the message (in its own poison
    // queue, unredacted: the poison-waiting alert) rather than it being lost; named by id.
    await expect(deliver(HOST_MAX_DEQUEUE_COUNT)).rejects.toThrow('poison copy not sent');
    expect(poisoned).toEqual([]);
    expect(
      logs.filter((line) => line.includes('could not be moved to the poison queue')),
    ).toHaveLength(HOST_MAX_DEQUEUE_COUNT - MAX_DEQUEUE_COUNT + 1);
    expect(logs.join('\n')).toContain('bulk message m-9');
    expect(logs.join('\n')).not.toContain(message.password);
  });

  it('poisons the message redacted on a later delivery once the poison queue is back', async () => {
    const poisonQueue = { down: true };
    const { poisoned, deliver } = setUp(poisonQueue);
    await expect(deliver(MAX_DEQUEUE_COUNT)).rejects.toThrow('delivered again');
    poisonQueue.down = false;
    await deliver(MAX_DEQUEUE_COUNT + 1);
    expect(poisoned.map((record) => record.message)).toEqual([
      { ...message, password: '[redacted]' },
    ]);
  });

  it("never drops a message on the host's last dequeue, logging it by id only", async () => {
    const logs: string[] = [];
    const handler = bulkRequestHandler({
      services: async () => {
        throw new Error('storage unavailable');
      },
      orchestrations: () => {
        throw new Error('unused');
      },
      now: () => new Date('2026-11-22T10:00:00Z'),
    });
    const context = (dequeueCount: number) =>
      new InvocationContext({
        triggerMetadata: { dequeueCount, id: 'm-7' },
        logHandler: (level, ...args) => void logs.push(`${level} ${args.map(String).join(' ')}`),
      });
    await expect(handler(message, context(HOST_MAX_DEQUEUE_COUNT - 1))).rejects.toThrow(
      'storage unavailable',
    );
    await expect(handler(message, context(HOST_MAX_DEQUEUE_COUNT))).rejects.toThrow(
      'storage unavailable',
    );
    expect(logs.join('\n')).toContain(
      `bulk message m-7 failed on dequeue ${HOST_MAX_DEQUEUE_COUNT}, the host's last`,
    );
    expect(logs.join('\n')).not.toContain(message.password);
  });
});

describe('bulk queue trigger: a message holding an array of requests', () => {
  const request = (accountId: string) => ({
    connector: 'hr',
    account: { accountId },
    actions: [{ type: 'create' }],
  });

  /** Starts every request but the one of `failing`, which fails as a transient fault would. */
  function setUpArray(failing: string) {
    const poisoned: PoisonRecord[] = [];
    const started = new Map<string, unknown>();
    const services = {
      registry: {
        get: () => ({
          capabilities: {
            visibilityWindowMs: 0,
            membershipReadScope: 'named',
            membershipWriteBatchSize: 1,
            membershipWritesSayIfInPlace: false,
          },
        }),
      },
      secrets: new LocalSecretStore(),
      requests: { add: async () => undefined, addTogether: async () => undefined },
      bulkQueue: { sendPoison: async (record: PoisonRecord) => void poisoned.push(record) },
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      metrics: { bulkPoisoned() {} },
    } as unknown as WorkflowServices;
    const orchestrations: OrchestrationClient = {
      startNew: async (_name, instanceId, input) => {
        if ((input as { account: { accountId: string } }).account.accountId === failing) {
          throw new Error('task hub unavailable');
        }
        started.set(instanceId, input);
        return 'started';
      },
      getStatus: async (instanceId) =>
        started.has(instanceId) ? { input: started.get(instanceId) } : undefined,
    } as OrchestrationClient;
    const handler = bulkRequestHandler({
      services: async () => services,
      orchestrations: () => orchestrations,
      now: () => new Date('2026-11-22T10:00:00Z'),
    });
    const deliver = (dequeueCount: number) =>
      handler(
        [request('ada'), request('bob'), { connector: 'hr' }],
        new InvocationContext({ triggerMetadata: { dequeueCount, id: 'm-1' } }),
      );
    return { poisoned, started, deliver };
  }

  it('starts each request once under <message id>-<index>, and poisons only the failing ones, once, at the fifth dequeue', async () => {
    const { poisoned, started, deliver } = setUpArray('bob');
    for (let dequeue = 1; dequeue < MAX_DEQUEUE_COUNT; dequeue++) {
      await expect(deliver(dequeue)).rejects.toThrow('task hub unavailable');
    }
    // The redeliveries found request 0 started: a duplicate each time, never a second start.
    expect([...started.keys()]).toEqual(['request-queue-m-1-0']);
    // The invalid request is judged again at each delivery: not poisoned before the last one.
    expect(poisoned).toEqual([]);
    await deliver(MAX_DEQUEUE_COUNT);
    expect([...started.keys()]).toEqual(['request-queue-m-1-0']);
    expect(
      poisoned.map(({ reason, message, messageId, index }) => ({
        reason,
        message,
        messageId,
        index,
      })),
    ).toEqual([
      {
        reason: 'request 1: failed 5 times, last: task hub unavailable',
        message: { requestId: 'queue-m-1-1', ...request('bob') },
        messageId: 'm-1',
        index: 1,
      },
      {
        reason: expect.stringMatching(/^request 2: invalid request: /),
        message: { requestId: 'queue-m-1-2', connector: 'hr' },
        messageId: 'm-1',
        index: 2,
      },
    ]);
  });
});
