import { InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { bulkRequestHandler, MAX_DEQUEUE_COUNT } from '../../../src/api/bulk-request-handler';
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
function setUp() {
  const poisoned: PoisonRecord[] = [];
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
    bulkQueue: { sendPoison: async (record: PoisonRecord) => void poisoned.push(record) },
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
    handler(message, new InvocationContext({ triggerMetadata: { dequeueCount } }));
  return { poisoned, poisonReasons, deliver, secrets };
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
        message: { ...message, password: '[redacted]' },
        dequeueCount: 5,
        at: '2026-11-22T10:00:00.000Z',
      },
    ]);
    // Each attempt stored the password under a fresh name; none is left behind.
    expect((secrets as unknown as { values: Map<string, string> }).values.size).toBe(0);
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
