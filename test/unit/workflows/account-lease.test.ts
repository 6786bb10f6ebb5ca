import { describe, expect, it } from 'vitest';
import type { LeaseResult } from '../../../src/store/account-leases';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import type { FakeCall } from './fake-activities';
import {
  finishRequest,
  provisioningRequest,
  runRequest,
  START,
  seconds,
  startRequest,
  stepStates,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

const ownerOf = (call: FakeCall) => (call.input as { owner: string }).owner;
const acquired = (call: FakeCall) =>
  call.result?.ok === true && (call.result.value as LeaseResult).acquired;

describe('provisioning request: the account lease (DESIGN invariant 7)', () => {
  it('makes a second request for the same account wait on timer polls until the first is done', async () => {
    const { driver, target } = workbench({ visibilityDelayMs: 5_000 });
    target.addAccount('ada@example.test');
    const first = provisioningRequest('lease-a', [
      { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
    ]);
    const second = provisioningRequest('lease-b', [
      { type: 'revoke', groups: [{ name: 'Sales' }] },
      { type: 'grant', groups: [{ name: 'Finance' }] },
    ]);
    // The second request arrives while the first holds the lease and writes.
    target.hooks.applyMembershipChanges = async (_input, call) => {
      if (call === 1) await startRequest(driver, second);
    };

    await startRequest(driver, first);
    const a = await finishRequest(driver, 'lease-a');
    const b = await finishRequest(driver, 'lease-b');

    expect(a.status).toBe('succeeded');
    expect(b.status).toBe('succeeded');
    expect(stepStates(b)).toEqual(['succeeded', 'succeeded']);
    const ownerA = requestInstanceId('lease-a');
    const ownerB = requestInstanceId('lease-b');
    const release = target
      .callsOf(ACTIVITIES.releaseAccountLease)
      .find((c) => ownerOf(c) === ownerA);
    const polls = target
      .callsOf(ACTIVITIES.acquireAccountLease)
      .filter((c) => ownerOf(c) === ownerB);
    const refused = polls.filter((call) => !acquired(call));
    // The first holds the lease through its 7 s verification: the second polls every second.
    const times = refused.map((call) => seconds(call.at));
    expect(times.length).toBeGreaterThanOrEqual(7);
    expect(times).toEqual(times.map((_, i) => i));
    const holders = refused.map((call) =>
      call.result?.ok === true ? (call.result.value as LeaseResult).holder : undefined,
    );
    expect(new Set(holders)).toEqual(new Set([ownerA]));
    const granted = polls.find(acquired);
    expect(seconds(granted!.at)).toBe(times.length);
    expect(granted!.at).toBeGreaterThanOrEqual(release!.at);
    // Every write of the first comes before its release, every write of the second after it.
    const released = target.calls.indexOf(release!);
    const writes = target.callsOf(ACTIVITIES.applyMembershipChanges).map((call) => {
      const { add, remove } = call.input as { add: string[]; remove: string[] };
      return { beforeRelease: target.calls.indexOf(call) < released, add, remove };
    });
    expect(writes).toEqual([
      { beforeRelease: true, add: ['g-sales', 'g-ops'], remove: [] },
      { beforeRelease: false, add: [], remove: ['g-sales'] },
      { beforeRelease: false, add: ['g-finance'], remove: [] },
    ]);
    expect(target.directGroups('ada@example.test').sort()).toEqual(['g-finance', 'g-ops']);
    expect(target.leases.size).toBe(0);
  });

  it('takes over the lease of a crashed holder once it expires', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    target.leases.set('hr/ada@example.test', {
      owner: 'request-crashed',
      expiresAtMs: START + 3_000,
    });

    const report = await runRequest(driver, provisioningRequest('lease-e', [{ type: 'lock' }]));

    expect(report.status).toBe('succeeded');
    const polls = target.callsOf(ACTIVITIES.acquireAccountLease);
    expect(polls.map((call) => [seconds(call.at), acquired(call)])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(seconds(target.callsOf(ACTIVITIES.setAccountEnabled)[0]!.at)).toBe(3);
  });

  it('releases the lease when the request fails', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');

    const report = await runRequest(
      driver,
      provisioningRequest('lease-c', [{ type: 'grant', groups: [{ name: 'Astronauts' }] }]),
    );

    expect(report.status).toBe('failed');
    expect(target.callsOf(ACTIVITIES.acquireAccountLease).filter(acquired)).toHaveLength(1);
    expect(target.callsOf(ACTIVITIES.releaseAccountLease)).toHaveLength(1);
    expect(target.leases.size).toBe(0);
  });

  it('holds the lease through every write of the request', async () => {
    const { driver, target } = workbench();
    const holders: (string | undefined)[] = [];
    const recordHolder = () => {
      holders.push(target.leases.get('hr/ada@example.test')?.owner);
    };
    target.hooks.createAccount = recordHolder;
    target.hooks.applyMembershipChanges = recordHolder;
    target.hooks.setAccountEnabled = recordHolder;

    await runRequest(
      driver,
      provisioningRequest('lease-d', [
        { type: 'create' },
        { type: 'grant', groups: [{ name: 'Sales' }] },
        { type: 'lock' },
      ]),
    );

    expect(holders).toEqual(Array(3).fill(requestInstanceId('lease-d')));
    expect(target.leases.size).toBe(0);
  });
});
