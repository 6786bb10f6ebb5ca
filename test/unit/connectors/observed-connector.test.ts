import { describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/connectors/connector';
import { observedConnector, type TargetObserver } from '../../../src/connectors/observed-connector';
import { ProvisioningError } from '../../../src/domain/errors';

/** A connector whose calls answer or fail as told; only what the tests call exists. */
function connector(behaviour: () => Promise<unknown>): Connector {
  return {
    name: 'hr',
    kind: 'memory',
    capabilities: {
      visibilityWindowMs: 0,
      membershipReadScope: 'named',
      membershipWriteBatchSize: 1,
    },
    findAccount: behaviour,
    checkStatus: behaviour,
    importGroups: async function* () {
      yield { id: 'g1', displayName: 'One' };
      await behaviour();
    },
  } as unknown as Connector;
}

function recorder(quarantines: boolean) {
  const seen: string[] = [];
  const observer: TargetObserver = {
    answered: (name) => void seen.push(`answered ${name}`),
    failed: (name, kind) => {
      seen.push(`failed ${name} ${kind}`);
      return quarantines;
    },
  };
  return { seen, observer };
}

describe('observedConnector', () => {
  it('tells the observer that the target answered, even with an error about the request', async () => {
    const { seen, observer } = recorder(false);
    await observedConnector(
      connector(async () => undefined),
      observer,
    ).findAccount('ada');
    const missing = new ProvisioningError('ACCOUNT_NOT_FOUND', 'no ada');
    await expect(
      observedConnector(
        connector(() => Promise.reject(missing)),
        observer,
      ).findAccount('ada'),
    ).rejects.toBe(missing);
    expect(seen).toEqual(['answered hr', 'answered hr']);
  });

  it('marks a failure that fails every request with its kind and whether it quarantines', async () => {
    const { seen, observer } = recorder(true);
    const refused = new ProvisioningError('TARGET_AUTH_FAILED', 'answered 401', {
      status: 401,
      object: 'ada',
      details: { scimType: 'x' },
    });
    const call = observedConnector(
      connector(() => Promise.reject(refused)),
      observer,
    );
    await expect(call.findAccount('ada')).rejects.toMatchObject({
      code: 'TARGET_AUTH_FAILED',
      message: 'answered 401',
      status: 401,
      object: 'ada',
      retryable: false,
      details: { scimType: 'x', targetFailure: { kind: 'credentials', quarantines: true } },
    });
    expect(seen).toEqual(['failed hr credentials']);
  });

  it('observes a list read through to its end, and leaves the operator’s status check alone', async () => {
    const { seen, observer } = recorder(false);
    const down = new ProvisioningError('TARGET_UNREACHABLE', 'refused', { retryable: true });
    const failing = observedConnector(
      connector(() => Promise.reject(down)),
      observer,
    );
    const read = async () => {
      for await (const group of failing.importGroups()) void group;
    };
    await expect(read()).rejects.toMatchObject({ details: { targetFailure: { kind: 'outage' } } });
    await expect(failing.checkStatus()).rejects.toBe(down);
    expect(seen).toEqual(['failed hr outage']);
  });
});
