import { describe, expect, it } from 'vitest';
import type { ProvisioningAction } from '../../../src/domain/provisioning-request';
import { ProvisioningError } from '../../../src/domain/errors';
import { ACTIVITIES } from '../../../src/workflows/names';
import type { FakeTarget } from './fake-activities';
import {
  provisioningRequest,
  runRequest,
  stepStates,
  useWorkbench,
  type Workbench,
} from './workflow-test-kit';

const workbench = useWorkbench();

const PASSWORD = 'Tr4nsient-Pa55word!';
const SECRET = 'request-pw-1';

/** Runs a request with a password held as a transient secret; records whether it existed at each write. */
async function runWithPassword(bench: Workbench, requestId: string, actions: ProvisioningAction[]) {
  const { driver, target } = bench;
  target.secrets.set(SECRET, PASSWORD);
  const present: Record<string, boolean> = {};
  const note = (name: string) => () => {
    present[name] = target.secrets.has(SECRET);
  };
  target.hooks.setPassword = note('setPassword');
  target.hooks.setAccountEnabled = note('setAccountEnabled');
  target.hooks.applyMembershipChanges = note('applyMembershipChanges');
  const report = await runRequest(
    driver,
    provisioningRequest(requestId, actions, { passwordSecret: SECRET }),
  );
  return { report, present };
}

function expectPasswordNowhere(bench: Workbench): void {
  expect(JSON.stringify(bench.driver.snapshot())).not.toContain(PASSWORD);
  expect(JSON.stringify(bench.target.calls)).not.toContain(PASSWORD);
  expect(JSON.stringify(bench.target.journal)).not.toContain(PASSWORD);
}

const discards = (target: FakeTarget) => target.callsOf(ACTIVITIES.discardSecret);

describe('provisioning request: the transient password secret (DESIGN invariant 5)', () => {
  it('is deleted by the create step when no later step uses it', async () => {
    const bench = workbench();

    const { report, present } = await runWithPassword(bench, 'pw-1', [
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }] },
    ]);

    expect(report.status).toBe('succeeded');
    expect(bench.target.accounts.get('ada@example.test')?.password).toBe(PASSWORD);
    expect(bench.target.callsOf(ACTIVITIES.createAccount)[0]?.input).toMatchObject({
      passwordSecret: SECRET,
      discardAfterUse: true,
    });
    expect(present.applyMembershipChanges).toBe(false);
    expect(bench.target.secrets.has(SECRET)).toBe(false);
    expect(discards(bench.target)).toEqual([]);
    expectPasswordNowhere(bench);
  });

  it('is kept by create for a later setPassword, which deletes it', async () => {
    const bench = workbench();

    const { report, present } = await runWithPassword(bench, 'pw-2', [
      { type: 'create' },
      { type: 'setPassword' },
      { type: 'lock' },
    ]);

    expect(report.status).toBe('succeeded');
    expect(bench.target.callsOf(ACTIVITIES.createAccount)[0]?.input).toMatchObject({
      discardAfterUse: false,
    });
    expect(present).toEqual({ setPassword: true, setAccountEnabled: false });
    expect(report.steps[1]?.changes).toEqual([{ change: 'password set' }]);
    expect(bench.target.secrets.has(SECRET)).toBe(false);
    expect(discards(bench.target)).toEqual([]);
    expectPasswordNowhere(bench);
  });

  it('is discarded at the end when the request fails before using it', async () => {
    const bench = workbench();
    bench.target.addAccount('ada@example.test');

    const { report } = await runWithPassword(bench, 'pw-3', [
      { type: 'grant', groups: [{ name: 'Astronauts' }] },
      { type: 'setPassword' },
    ]);

    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    expect(bench.target.callsOf(ACTIVITIES.setPassword)).toEqual([]);
    expect(discards(bench.target).map((call) => call.input)).toEqual([{ name: SECRET }]);
    expect(bench.target.secrets.has(SECRET)).toBe(false);
    expect(bench.target.accounts.get('ada@example.test')?.password).toBeUndefined();
    expectPasswordNowhere(bench);
  });

  it('is discarded when the request fails before any step ran', async () => {
    const bench = workbench();
    bench.target.secrets.set(SECRET, PASSWORD);

    const report = await runRequest(
      bench.driver,
      provisioningRequest('pw-4', [{ type: 'create' }], {
        passwordSecret: SECRET,
        connector: 'unknown',
      }),
    );

    expect(report.status).toBe('failed');
    expect(discards(bench.target)).toHaveLength(1);
    expect(bench.target.secrets.has(SECRET)).toBe(false);
  });

  it('is discarded when the step that uses it fails', async () => {
    const bench = workbench();
    bench.target.addAccount('ada@example.test');

    const { driver, target } = bench;
    target.secrets.set(SECRET, PASSWORD);
    target.hooks.setPassword = () => {
      throw new ProvisioningError('SCIM_INVALID_VALUE', 'the password does not meet the policy', {
        status: 400,
      });
    };
    const report = await runRequest(
      driver,
      provisioningRequest('pw-5', [{ type: 'setPassword' }, { type: 'lock' }], {
        passwordSecret: SECRET,
      }),
    );

    expect(stepStates(report)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('SCIM_INVALID_VALUE');
    expect(discards(target)).toHaveLength(1);
    expect(target.secrets.has(SECRET)).toBe(false);
    expectPasswordNowhere(bench);
  });

  it('is discarded at the end when no step of the request uses it', async () => {
    const bench = workbench();
    bench.target.addAccount('ada@example.test');

    const { report } = await runWithPassword(bench, 'pw-6', [{ type: 'lock' }]);

    expect(report.status).toBe('succeeded');
    expect(discards(bench.target).map((call) => call.input)).toEqual([{ name: SECRET }]);
    expect(bench.target.secrets.has(SECRET)).toBe(false);
  });
});
