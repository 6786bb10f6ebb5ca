import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import {
  OPS,
  SALES,
  START,
  provisioningRequest,
  runRequest,
  seconds,
  stepStates,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

const grantTwoThenLock = (requestId: string) =>
  provisioningRequest(requestId, [
    { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
    { type: 'lock' },
  ]);

describe('membership step: the re-read loop on durable timers (spec: Membership write procedure 4-6)', () => {
  it('re-reads after 1 s, then backs off (2, 4 s) until the writes show, and succeeds', async () => {
    const { driver, target } = workbench({ visibilityDelayMs: 5_000 });
    target.addAccount('ada@example.test');

    const report = await runRequest(driver, grantTwoThenLock('verify-1'));

    expect(stepStates(report)).toEqual(['succeeded', 'succeeded']);
    expect(report.steps[0]?.notices).toContain('verified after 4 reads');
    const reads = target.callsOf(ACTIVITIES.readMemberships).map((call) => seconds(call.at));
    // The current read, the first verification read right after the writes, then re-reads
    // at +1, +3 (1 + 2) and +7 s (1 + 2 + 4): the writes show at +5 s.
    expect(reads).toEqual([0, 0, 1, 3, 7]);
    const writes = target
      .callsOf(ACTIVITIES.applyMembershipChanges)
      .map((call) => seconds(call.at));
    expect(writes).toEqual([0]);
    // The waits are durable timers, not sleeps: three timers fired.
    const fired = driver
      .history(requestInstanceId('verify-1'))
      .filter((event) => event.EventType === HISTORY_EVENT.TimerFired);
    expect(fired).toHaveLength(3);
    // The lock step ran after the verified grant.
    expect(seconds(target.callsOf(ACTIVITIES.setAccountEnabled)[0]!.at)).toBe(7);
  });

  it('fails after 30 s of virtual time naming the missing groups, and skips the later steps', async () => {
    const { driver, target } = workbench({ visibilityDelayMs: 40_000 });
    target.addAccount('ada@example.test');

    const report = await runRequest(driver, grantTwoThenLock('verify-2'));

    expect(report.status).toBe('failed');
    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    const error = report.steps[0]?.error;
    expect(error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(error?.details?.missing).toEqual([
      { id: SALES.id, name: 'Sales' },
      { id: OPS.id, name: 'Ops' },
    ]);
    expect(error?.details?.unexpected).toEqual([]);
    expect(error?.message).toContain('Sales (g-sales)');
    const reads = target.callsOf(ACTIVITIES.readMemberships).map((call) => seconds(call.at));
    // Backoff 1, 2, 4, then every 5 s, the last wait cut to end at the 30 s window.
    expect(reads).toEqual([0, 0, 1, 3, 7, 12, 17, 22, 27, 30]);
    expect(Date.parse(report.finishedAt ?? '') - START).toBe(30_000);
    // The writes happened: they stay in the report and the journal (nothing effective unrecorded).
    expect(report.steps[0]?.changes.map((change) => change.groupId)).toEqual([SALES.id, OPS.id]);
    expect(target.journal.map((entry) => entry.groupId)).toEqual([SALES.id, OPS.id]);
    expect(target.callsOf(ACTIVITIES.setAccountEnabled)).toEqual([]);
  });

  it('names an unexpected group that shows up where a revoked one should be gone', async () => {
    const { driver, target } = workbench({ visibilityDelayMs: 40_000 });
    target.addAccount('ada@example.test', [SALES.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('verify-3', [{ type: 'revoke', groups: [{ name: 'Sales' }] }]),
    );

    expect(report.steps[0]?.error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(report.steps[0]?.error?.details).toEqual({
      missing: [],
      unexpected: [{ id: SALES.id, name: 'Sales' }],
    });
  });

  it('reads back only the written groups, one call each, on a target that reads named groups', async () => {
    const { driver, target } = workbench({
      kind: 'scim',
      capabilities: { membershipReadScope: 'named', membershipWriteBatchSize: 1 },
      visibilityDelayMs: 1_000,
    });
    target.addAccount('ada@example.test', [OPS.id]);

    const report = await runRequest(
      driver,
      provisioningRequest(
        'verify-4',
        [{ type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] }],
        { capabilities: target.capabilities },
      ),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    const reads = target.callsOf(ACTIVITIES.readMemberships);
    const scopes = reads.map((call) => [
      seconds(call.at),
      (call.input as { groupIds: string[] }).groupIds,
    ]);
    expect(scopes).toEqual([
      [0, [SALES.id]],
      [0, [OPS.id]],
      [0, [SALES.id]],
      [1, [SALES.id]],
    ]);
    expect(target.callsOf(ACTIVITIES.applyMembershipChanges)).toHaveLength(1);
  });

  it('writes in batches no larger than the connector can carry in one call', async () => {
    // Ops is not in the (empty) catalogue: it is not managed, so setMemberships leaves it.
    const { driver, target } = workbench({ capabilities: { membershipWriteBatchSize: 1 } });
    target.addAccount('ada@example.test', [OPS.id]);

    const report = await runRequest(
      driver,
      provisioningRequest(
        'verify-5',
        [{ type: 'setMemberships', groups: [{ name: 'Sales' }, { name: 'Finance' }] }],
        { capabilities: target.capabilities },
      ),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    const batches = target
      .callsOf(ACTIVITIES.applyMembershipChanges)
      .map((call) => (call.input as { add: string[]; remove: string[] }).add);
    expect(batches).toEqual([[SALES.id], ['g-finance']]);
    expect(target.directGroups('ada@example.test').sort()).toEqual(['g-finance', OPS.id, SALES.id]);
  });
});
