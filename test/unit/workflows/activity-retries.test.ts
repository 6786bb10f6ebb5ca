import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import { ACTIVITIES } from '../../../src/workflows/names';
import {
  SALES,
  provisioningRequest,
  runRequest,
  seconds,
  stepStates,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

const unavailable = () =>
  new ProvisioningError('TARGET_UNAVAILABLE', 'the target answered 503 after 3 attempts', {
    retryable: true,
    status: 503,
    object: 'hr',
  });

const grantSales = (requestId: string) =>
  provisioningRequest(requestId, [
    { type: 'grant', groups: [{ name: 'Sales' }] },
    { type: 'lock' },
  ]);

describe('activities that throw retryable failures (ACTIVITY_RETRY: 2 s, x2, 3 attempts)', () => {
  it('retries on durable timers and the step succeeds when a later attempt does', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    target.hooks.applyMembershipChanges = (_input, call) => {
      if (call <= 2) throw unavailable();
    };

    const report = await runRequest(driver, grantSales('retry-1'));

    expect(stepStates(report)).toEqual(['succeeded', 'succeeded']);
    const attempts = target.callsOf(ACTIVITIES.applyMembershipChanges);
    expect(attempts.map((call) => seconds(call.at))).toEqual([0, 2, 6]);
    expect(target.directGroups('ada@example.test')).toEqual([SALES.id]);
    // One effective change, journaled once, whatever the retries.
    expect(target.journal.map((entry) => [entry.change, entry.groupId])).toEqual([
      ['member added', SALES.id],
      ['account locked', undefined],
    ]);
  });

  it('fails the step with the serialized code once the attempts are exhausted', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    target.hooks.applyMembershipChanges = () => {
      throw unavailable();
    };

    const report = await runRequest(driver, grantSales('retry-2'));

    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error).toMatchObject({
      code: 'TARGET_UNAVAILABLE',
      message: 'the target answered 503 after 3 attempts',
      retryable: true,
      status: 503,
    });
    expect(target.callsOf(ACTIVITIES.applyMembershipChanges)).toHaveLength(3);
    expect(target.callsOf(ACTIVITIES.setAccountEnabled)).toEqual([]);
    expect(target.leases.size).toBe(0);
  });

  it('reports a defect in an activity as INTERNAL_ERROR naming the activity', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    target.hooks.findAccount = () => {
      throw new TypeError('cannot read properties of undefined');
    };

    const report = await runRequest(driver, provisioningRequest('retry-3', [{ type: 'lock' }]));

    expect(stepStates(report)).toEqual(['failed']);
    expect(report.steps[0]?.error?.code).toBe('INTERNAL_ERROR');
    expect(report.steps[0]?.error?.message).toContain('findAccount');
    expect(report.steps[0]?.error?.message).toContain('cannot read properties of undefined');
  });

  it('does not retry an expected failure returned as data', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    target.hooks.setAccountEnabled = () => {
      throw new ProvisioningError('TARGET_FORBIDDEN', 'the target refused the change', {
        status: 403,
      });
    };

    const report = await runRequest(driver, provisioningRequest('retry-4', [{ type: 'lock' }]));

    expect(report.steps[0]?.error?.code).toBe('TARGET_FORBIDDEN');
    expect(target.callsOf(ACTIVITIES.setAccountEnabled)).toHaveLength(1);
  });
});
