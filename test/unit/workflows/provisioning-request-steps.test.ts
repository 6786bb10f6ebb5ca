import { describe, expect, it } from 'vitest';
import type { RequestReport } from '../../../src/domain/request-report';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import { TARGET_WRITES } from './fake-activities';
import {
  OPS,
  SALES,
  provisioningRequest,
  runRequest,
  stepStates,
  useWorkbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

describe('provisioning request orchestration: steps', () => {
  it('runs create, grant of two groups and lock in order and reports every step succeeded', async () => {
    const { driver, target } = workbench();
    const seen: Record<string, RequestReport> = {};
    const capture = (label: string) => async () => {
      const state = await driver.getStatus(requestInstanceId('req-1'));
      seen[label] = state?.customStatus as RequestReport;
    };
    target.hooks.createAccount = capture('create');
    target.hooks.applyMembershipChanges = capture('grant');
    target.hooks.setAccountEnabled = capture('lock');

    const report = await runRequest(
      driver,
      provisioningRequest('req-1', [
        { type: 'create' },
        { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Ops' }] },
        { type: 'lock' },
      ]),
    );

    expect(report.status).toBe('succeeded');
    expect(stepStates(report)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(report.steps.map((step) => step.changes)).toEqual([
      [{ change: 'account created' }],
      [
        { change: 'member added', groupId: SALES.id, groupName: 'Sales' },
        { change: 'member added', groupId: OPS.id, groupName: 'Ops' },
      ],
      [{ change: 'account locked' }],
    ]);
    expect(report.steps[1]?.groups).toEqual(['Sales', 'Ops']);
    // What a caller polling the status saw while each step ran.
    expect(stepStates(seen.create!)).toEqual(['running', 'pending', 'pending']);
    expect(stepStates(seen.grant!)).toEqual(['succeeded', 'running', 'pending']);
    expect(stepStates(seen.lock!)).toEqual(['succeeded', 'succeeded', 'running']);
    expect(seen.grant?.status).toBe('running');

    const account = target.accounts.get('ada@example.test');
    expect(account?.enabled).toBe(false);
    expect(target.directGroups('ada@example.test').sort()).toEqual([OPS.id, SALES.id]);
    expect(target.journal.map((entry) => [entry.step, entry.change, entry.groupId])).toEqual([
      [0, 'account created', undefined],
      [1, 'member added', SALES.id],
      [1, 'member added', OPS.id],
      [2, 'account locked', undefined],
    ]);
    const final = await driver.getStatus(requestInstanceId('req-1'));
    expect((final?.customStatus as RequestReport).status).toBe('succeeded');
  });

  it('fails the request at a grant of an unknown group, names it, and skips the later steps', async () => {
    const { driver, target } = workbench();

    const report = await runRequest(
      driver,
      provisioningRequest('req-2', [
        { type: 'create' },
        { type: 'grant', groups: [{ name: 'Sales' }, { name: 'Astronauts' }] },
        { type: 'lock' },
        { type: 'grant', groups: [{ name: 'Ops' }] },
      ]),
    );

    expect(report.status).toBe('failed');
    expect(stepStates(report)).toEqual(['succeeded', 'failed', 'skipped', 'skipped']);
    const failedStep = report.steps[1];
    expect(failedStep?.error?.code).toBe('GROUP_NOT_FOUND');
    expect(failedStep?.error?.message).toContain('"Astronauts"');
    expect(failedStep?.error?.object).toBe('Astronauts');
    expect(failedStep?.changes).toEqual([]);

    const failedAt = target.calls.findIndex(
      (call) => call.name === ACTIVITIES.resolveGroup && call.result?.ok === false,
    );
    expect(failedAt).toBeGreaterThan(0);
    const writesAfter = target.calls
      .slice(failedAt)
      .filter((call) => TARGET_WRITES.includes(call.name));
    expect(writesAfter).toEqual([]);
    expect(target.accounts.get('ada@example.test')?.enabled).toBe(true);
    expect(target.directGroups('ada@example.test')).toEqual([]);
    expect(target.journal.map((entry) => entry.change)).toEqual(['account created']);
  });

  it('names every unknown group of a step in one error', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test');

    const report = await runRequest(
      driver,
      provisioningRequest('req-3', [
        { type: 'grant', groups: [{ name: 'Astronauts' }, { name: 'Pilots' }] },
      ]),
    );

    expect(report.steps[0]?.error?.code).toBe('GROUP_NOT_FOUND');
    expect(report.steps[0]?.error?.message).toContain('"Astronauts"');
    expect(report.steps[0]?.error?.message).toContain('"Pilots"');
  });

  it('fails a membership step on an absent account without touching the target', async () => {
    const { driver, target } = workbench();

    const report = await runRequest(
      driver,
      provisioningRequest('req-4', [
        { type: 'grant', groups: [{ name: 'Sales' }] },
        { type: 'lock' },
      ]),
    );

    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('ACCOUNT_NOT_FOUND');
    expect(target.calls.filter((call) => TARGET_WRITES.includes(call.name))).toEqual([]);
  });

  it('fails the first step for an unknown connector and writes nothing', async () => {
    const { driver, target } = workbench();

    const report = await runRequest(
      driver,
      provisioningRequest('req-5', [{ type: 'create' }, { type: 'lock' }], { connector: 'nope' }),
    );

    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('CONNECTOR_NOT_FOUND');
    expect(
      target.calls.filter((call) => TARGET_WRITES.includes(call.name) && call.result?.ok === true),
    ).toEqual([]);
  });

  it('writes and journals nothing to lock a locked account or delete an absent one', async () => {
    const { driver, target } = workbench();
    target.addAccount('ada@example.test', [], false);

    const locked = await runRequest(driver, provisioningRequest('req-6', [{ type: 'lock' }]));
    target.accounts.clear();
    const deleted = await runRequest(driver, provisioningRequest('req-7', [{ type: 'delete' }]));

    expect(stepStates(locked)).toEqual(['succeeded']);
    expect(locked.steps[0]?.notices).toEqual(['account is already locked']);
    expect(stepStates(deleted)).toEqual(['succeeded']);
    expect(deleted.steps[0]?.notices).toEqual([
      'account "ada@example.test" is absent: nothing to delete',
    ]);
    expect(target.calls.filter((call) => TARGET_WRITES.includes(call.name))).toEqual([]);
    expect(target.journal).toEqual([]);
  });
});
