import { describe, expect, it } from 'vitest';
import { submitProvisioningRequest } from '../../../src/api/submit-request';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';
import type { SecretStore } from '../../../src/secrets/secret-store';
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
    requests: { add: async (entry: unknown) => void indexed.push(entry) },
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
