import { afterEach, describe, expect, it } from 'vitest';
import { formatCompatibilityReport } from '../../../src/connectors/scim/compatibility-report';
import { runScimCompatibility } from '../../../src/connectors/scim/compatibility-run';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function run(quirks: ScimQuirks, groupName?: string, auth?: { type: 'none' }) {
  target = await startScimTarget({ quirks, ...(auth === undefined ? {} : { auth }) });
  target.sandbox.seedGroups([{ displayName: 'Compat Group' }, { displayName: 'Second Group' }]);
  target.sandbox.seedUsers([{ userName: 'someone', lastLogon: '2026-11-01T00:00:00Z' }]);
  const report = await runScimCompatibility(
    target.settings,
    target.secrets,
    groupName === undefined ? {} : { groupName },
  );
  const testUserLeft = target.sandbox.getUser(report.testAccount);
  return { report, testUserLeft, text: formatCompatibilityReport(report) };
}

const outcomes = (report: { points: Array<{ outcome: string }> }) =>
  report.points.map((p) => p.outcome);

describe('the compatibility run (spec: a test run with a test account)', () => {
  it('reports all six points fit on a fitting server, with evidence, and removes the test account', async () => {
    const { report, testUserLeft, text } = await run({ lastLogonAttribute: 'lastLogin' });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits', 'fits']);
    expect(report.fits).toBe(true);
    expect(report.group?.displayName).toBe('Compat Group');
    for (const point of report.points.slice(0, 5)) {
      expect(point.checks.some((c) => c.evidence.length > 0)).toBe(true);
    }
    expect(report.steps.map((s) => s.outcome)).not.toContain('failed');
    expect(testUserLeft).toBeUndefined();
    expect(report.cleanup).toContain('removed');
    expect(text).toMatch(/1\. endpoints under a path that ends in \/scim\/v2\/\s+FITS/);
    expect(text).toContain('6 of 6 points fit');
    expect(text).not.toMatch(/"password":"(?!\[redacted\])/);
  });

  it('grants and revokes the group the operator names', async () => {
    const { report } = await run({ lastLogonAttribute: 'lastLogin' }, 'Second Group');
    expect(report.group?.displayName).toBe('Second Group');
    expect(report.fits).toBe(true);
  });

  it('finds point 3 does not fit when member values must be internal ids, and still removes the account', async () => {
    const { report, testUserLeft, text } = await run({
      lastLogonAttribute: 'lastLogin',
      memberValuesMustBeInternalIds: true,
    });
    expect(report.points[2]).toMatchObject({ outcome: 'does not fit' });
    expect(report.points[2]?.checks[0]?.evidence).toContainEqual(
      expect.objectContaining({ status: 400 }),
    );
    expect(report.fits).toBe(false);
    expect(testUserLeft).toBeUndefined();
    expect(text).toContain('3. the account ID accepted as a group member value');
    expect(text).toMatch(/DOES NOT FIT/);
  });

  it('finds point 6 does not fit without a last-logon attribute', async () => {
    const { report } = await run({});
    expect(report.points[5]?.outcome).toBe('does not fit');
    expect(outcomes(report).slice(0, 5)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits']);
  });

  it('finds point 5 does not fit when PATCH is silently ignored', async () => {
    const { report, testUserLeft } = await run({
      lastLogonAttribute: 'lastLogin',
      ignorePatchOps: true,
    });
    expect(report.points[4]?.outcome).toBe('does not fit');
    expect(testUserLeft).toBeUndefined();
  });

  it('cannot tell point 2 for a connector without credentials', async () => {
    const { report } = await run({ lastLogonAttribute: 'lastLogin' }, undefined, { type: 'none' });
    expect(report.points[1]?.outcome).toBe('could not tell');
  });
});
