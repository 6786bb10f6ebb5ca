import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import { ACTIVITIES } from '../../../src/workflows/names';
import {
  FINANCE,
  LEGAL,
  OPS,
  SALES,
  provisioningRequest,
  runRequest,
  stepStates,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

const writeInputs = (calls: { input: unknown }[]) =>
  calls.map((call) => {
    const { add, remove } = call.input as { add: string[]; remove: string[] };
    return { add, remove };
  });

describe('membership steps: only effective changes (DESIGN invariant 1)', () => {
  it('writes and journals nothing for a grant of a group the account already has', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test', [SALES.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('eff-1', [{ type: 'grant', groups: [{ name: 'Sales' }] }]),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    expect(report.steps[0]?.changes).toEqual([]);
    expect(report.steps[0]?.notices).toContain('already as requested, not written: Sales');
    expect(target.callsOf(ACTIVITIES.applyMembershipChanges)).toEqual([]);
    expect(target.callsOf(ACTIVITIES.recordJournal)).toEqual([]);
    expect(target.journal).toEqual([]);
  });

  it('writes and journals nothing for a revoke of a group the account is not in', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test', [SALES.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('eff-2', [{ type: 'revoke', groups: [{ name: 'Ops' }] }]),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    expect(report.steps[0]?.changes).toEqual([]);
    expect(target.callsOf(ACTIVITIES.applyMembershipChanges)).toEqual([]);
    expect(target.journal).toEqual([]);
    expect(target.directGroups('ada@example.test')).toEqual([SALES.id]);
  });

  it('writes only the groups that change when a grant mixes old and new groups', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test', [SALES.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('eff-3', [
        { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
        { type: 'revoke', groups: [{ name: 'Sales' }, { name: 'Finance' }] },
      ]),
    );

    expect(stepStates(report)).toEqual(['succeeded', 'succeeded']);
    expect(writeInputs(target.callsOf(ACTIVITIES.applyMembershipChanges))).toEqual([
      { add: [OPS.id], remove: [] },
      { add: [], remove: [SALES.id] },
    ]);
    expect(target.journal.map((entry) => [entry.step, entry.change, entry.groupName])).toEqual([
      [0, 'member added', 'Ops'],
      [1, 'member removed', 'Sales'],
    ]);
  });

  it('does not journal a change the target found already in place at write time', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');
    // Someone else adds the account to Sales between the step's read and its write.
    target.hooks.applyMembershipChanges = () => {
      target.addMembership('ada@example.test', SALES.id);
    };

    const report = await runRequest(
      driver,
      provisioningRequest('eff-4', [{ type: 'grant', groups: [{ name: 'Sales' }] }]),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    expect(report.steps[0]?.changes).toEqual([]);
    expect(report.steps[0]?.notices).toContain('found already in place at write time: Sales');
    expect(target.journal).toEqual([]);
  });

  it('gives the journal entries of a request the same keys when it runs again', async () => {
    const request = provisioningRequest('eff-5', [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
      { type: 'lock' },
    ]);
    const keysOfOneRun = async () => {
      const { driver, target } = workbench();
      await runRequest(driver, request);
      return target.journal.map((entry) => entry.key);
    };

    const first = await keysOfOneRun();
    const second = await keysOfOneRun();

    expect(first).toHaveLength(4);
    expect(new Set(first).size).toBe(4);
    expect(second).toEqual(first);
  });
});

describe('setMemberships: reconciliation against the managed groups', () => {
  it('revokes managed groups outside the desired set and never touches unmanaged ones', async () => {
    const { driver, target } = workbench({ catalogue: [SALES, OPS, FINANCE] });
    // Legal is on the target but not in the catalogue: not the service's to manage.
    target.addAccount('ada@example.test', [SALES.id, OPS.id, LEGAL.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('set-1', [
        { type: 'setMemberships', groups: [{ name: 'Ops' }, { name: 'Finance' }] },
      ]),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    expect(report.steps[0]?.changes).toEqual([
      { change: 'member removed', groupId: SALES.id, groupName: 'Sales' },
      { change: 'member added', groupId: FINANCE.id, groupName: 'Finance' },
    ]);
    const written = writeInputs(target.callsOf(ACTIVITIES.applyMembershipChanges));
    expect(written).toEqual([
      { add: [], remove: [SALES.id] },
      { add: [FINANCE.id], remove: [] },
    ]);
    expect(JSON.stringify(written)).not.toContain(LEGAL.id);
    // Roles of the catalogue need no lookup on the target.
    expect(target.callsOf(ACTIVITIES.resolveGroup)).toEqual([]);
    expect(target.directGroups('ada@example.test').sort()).toEqual([FINANCE.id, LEGAL.id, OPS.id]);
  });

  it('with an empty desired set revokes every managed group and nothing else', async () => {
    const { driver, target } = workbench({ catalogue: [SALES, OPS] });
    target.addAccount('ada@example.test', [SALES.id, LEGAL.id]);

    const report = await runRequest(
      driver,
      provisioningRequest('set-2', [{ type: 'setMemberships', groups: [] }]),
    );

    expect(stepStates(report)).toEqual(['succeeded']);
    expect(target.directGroups('ada@example.test')).toEqual([LEGAL.id]);
    expect(target.journal.map((entry) => [entry.change, entry.groupId])).toEqual([
      ['member removed', SALES.id],
    ]);
  });
});

describe('membership steps: a write call that fails in part', () => {
  it('fails the step and still journals the changes the call says it made', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test', []);
    target.hooks[ACTIVITIES.applyMembershipChanges] = () => {
      throw new ProvisioningError('GRAPH_REQUEST_REJECTED', 'group Ops refused the member', {
        object: OPS.id,
        details: {
          applied: [{ groupId: SALES.id, groupName: 'Sales', change: 'added' }],
        },
      });
    };

    const report = await runRequest(
      driver,
      provisioningRequest('partial-1', [
        { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
      ]),
    );

    expect(stepStates(report)).toEqual(['failed']);
    expect(report.steps[0]?.error?.code).toBe('GRAPH_REQUEST_REJECTED');
    expect(report.steps[0]?.changes).toEqual([
      { change: 'member added', groupId: SALES.id, groupName: 'Sales' },
    ]);
    expect(target.journal.map((entry) => [entry.change, entry.groupId])).toEqual([
      ['member added', SALES.id],
    ]);
  });
});
