import { describe, expect, it } from 'vitest';
import { submitProvisioningRequest } from '../../../src/api/submit-request';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';
import type { SecretStore } from '../../../src/secrets/secret-store';
import type { DurableClient } from 'durable-functions';
import { DurableOrchestrationClient } from '../../../src/workflows/durable-orchestration-client';
import type { OrchestrationClient } from '../../../src/workflows/orchestration-client';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { expectNoSecrets } from '../../support/no-secrets';

const PASSWORD = 'Planted-Passw0rd-77';
const CONTEXT = { requestedBy: 'ops@example.test', reason: 'joiner', correlationId: 'CHG-42' };

/** A submission with a password and a context, and everything it handed on. */
async function submit(extra: Record<string, unknown> = {}) {
  const stored: [string, string][] = [];
  const secrets = {
    set: async (name: string, value: string) => void stored.push([name, value]),
    delete: async () => {},
  } as unknown as SecretStore;
  const started: unknown[] = [];
  const indexed: unknown[] = [];
  const orchestrations: OrchestrationClient = {
    startNew: async (_name, _id, input) => {
      started.push(input);
      return 'started';
    },
    getStatus: async () => undefined,
  };
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
    secrets,
    // The bulk queue's requests are listed with the others submitted at once.
    requests: { addTogether: async (entry: unknown) => void indexed.push(entry) },
  } as unknown as WorkflowServices;
  const outcome = await submitProvisioningRequest(
    {
      connector: 'hr',
      account: { accountId: 'ada' },
      password: PASSWORD,
      actions: [{ type: 'create' }],
      ...CONTEXT,
      ...extra,
    },
    services,
    orchestrations,
    { source: 'queue', now: new Date('2026-11-23T08:00:00Z') },
  );
  return { outcome, stored, indexed, input: started[0] as ProvisioningRequest };
}

describe('submitProvisioningRequest: context and secrets stay apart', () => {
  it('carries the context into the orchestration input, and the password only into the secret store', async () => {
    const { outcome, stored, indexed, input } = await submit();
    expect(outcome.kind).toBe('started');
    expect(input).toMatchObject(CONTEXT);
    expectNoSecrets(input, { password: PASSWORD }, 'the orchestration input');
    // The secret is the password alone: no context goes into it.
    expect(stored).toEqual([[input.passwordSecret, PASSWORD]]);
    // The request list learns who asked and why, and nothing of the password.
    expect(indexed).toEqual([expect.objectContaining({ requestId: input.requestId, ...CONTEXT })]);
    expectNoSecrets(
      indexed,
      { password: PASSWORD, 'password secret name': input.passwordSecret },
      'the request list',
    );
  });
});

describe('submitProvisioningRequest: a preview has a caller to answer', () => {
  it('refuses "mode": "preview" from the queue, starting nothing and storing no password', async () => {
    const { outcome, stored, input } = await submit({ mode: 'preview' });
    expect(outcome).toEqual({
      kind: 'invalid',
      problems: [{ path: 'mode', message: expect.stringContaining('POST /api/requests') }],
    });
    expect(input).toBeUndefined();
    expect(stored).toEqual([]);
  });

  it('takes "mode": "run" as the request it always was', async () => {
    const plain = await submit({ requestId: 'same-request' });
    const run = await submit({ requestId: 'same-request', mode: 'run' });
    expect(run.outcome.kind).toBe('started');
    expect(run.input.fingerprint).toBe(plain.input.fingerprint);
  });
});

describe('submitProvisioningRequest: a start whose answer failed after the task hub took it', () => {
  it('keeps the password secret its orchestration needs, and answers started', async () => {
    // The Durable client (which cannot run here) as the task hub answers it: the start is
    // taken, then the call times out; the instance holds the input from then on.
    const instances = new Map<string, { input: unknown }>();
    const durable = {
      startNew: async (_name: string, options: { instanceId: string; input: unknown }) => {
        instances.set(options.instanceId, { input: JSON.parse(JSON.stringify(options.input)) });
        throw new Error('The operation was aborted due to timeout');
      },
      getStatus: async (instanceId: string) => {
        const instance = instances.get(instanceId);
        if (instance === undefined) throw new Error('Instance not found (HTTP 404)');
        const now = new Date();
        return {
          instanceId,
          name: 'x',
          runtimeStatus: 'Running',
          createdTime: now,
          lastUpdatedTime: now,
          ...instance,
        };
      },
    } as unknown as DurableClient;
    const deleted: string[] = [];
    const secrets = {
      set: async () => {},
      delete: async (name: string) => void deleted.push(name),
    } as unknown as SecretStore;
    const indexed: unknown[] = [];
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
      secrets,
      // The bulk queue's requests are listed with the others submitted at once.
      requests: { addTogether: async (entry: unknown) => void indexed.push(entry) },
    } as unknown as WorkflowServices;
    const outcome = await submitProvisioningRequest(
      {
        requestId: 'taken-then-timed-out',
        connector: 'hr',
        account: { accountId: 'ada' },
        password: PASSWORD,
        actions: [{ type: 'create' }],
      },
      services,
      new DurableOrchestrationClient(durable),
      { source: 'queue', now: new Date('2026-11-23T08:00:00Z') },
    );
    expect(outcome).toMatchObject({ kind: 'started', requestId: 'taken-then-timed-out' });
    const [instance] = [...instances.values()];
    expect((instance?.input as ProvisioningRequest).passwordSecret).toBeDefined();
    expect(deleted).toEqual([]);
    expect(indexed).toHaveLength(1);
  });
});
