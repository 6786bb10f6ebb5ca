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
