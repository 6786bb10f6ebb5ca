import { describe, expect, it } from 'vitest';
import type { RequestReport } from '../../../src/domain/request-report';
import { requestInstanceId } from '../../../src/workflows/names';
import {
  WAIT_MS,
  provisioningRequest,
  seconds,
  startRequest,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

describe('provisioning request: the account lease of a long request (DESIGN invariant 7)', () => {
  it('keeps the lease alive through a request that runs longer than the lease', async () => {
    // Each grant verifies after 30 s (writes show after 29 s): 11 of them outlast the 5 min lease.
    const groups = Array.from({ length: 11 }, (_, i) => ({
      id: `g-${i}`,
      displayName: `Team ${i}`,
    }));
    const { driver, target, clock } = workbench({ groups, visibilityDelayMs: 29_000 });
    target.addAccount('ada@example.test');
    const lapses: number[] = [];
    target.hooks.applyMembershipChanges = () => {
      const lease = target.leases.get('hr/ada@example.test');
      if (lease?.owner !== requestInstanceId('lease-f') || lease.expiresAtMs <= clock.now()) {
        lapses.push(seconds(clock.now()));
      }
    };

    // Run without the replay check of every prefix: the long history makes it slow, and the
    // other tests of this file check replay of the same code paths.
    await startRequest(
      driver,
      provisioningRequest(
        'lease-f',
        groups.map((group) => ({ type: 'grant' as const, groups: [{ name: group.displayName }] })),
      ),
    );
    const state = await driver.waitFor(requestInstanceId('lease-f'), WAIT_MS);
    const report = state.output as RequestReport;

    expect(report.status).toBe('succeeded');
    expect(seconds(Date.parse(report.finishedAt ?? ''))).toBeGreaterThan(300);
    expect(lapses).toEqual([]);
    expect(target.leases.size).toBe(0);
  });
});
