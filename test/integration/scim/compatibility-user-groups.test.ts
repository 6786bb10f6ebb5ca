import { afterEach, describe, expect, it } from 'vitest';
import { formatCompatibilityReport } from '../../../src/connectors/scim/compatibility-report';
import { runScimCompatibility } from '../../../src/connectors/scim/compatibility-run';
import type { ScimQuirks } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/**
 * The compatibility run checks the user's `groups` attribute (RFC 7643 §4.1.2) against the
 * one membership it makes and reads back, and says whether it listed it, in its result, its
 * text and, where verdicts lean on it (no members filter), its verdict.
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function run(quirks: ScimQuirks) {
  target = await startScimTarget({ quirks: { lastLogonAttribute: 'lastLogin', ...quirks } });
  target.sandbox.seedUsers([{ userName: 'someone', lastLogon: '2026-11-01T00:00:00Z' }]);
  target.sandbox.seedGroups([{ displayName: 'Compat Group' }]);
  const report = await runScimCompatibility(target.settings, target.secrets);
  return { report, text: formatCompatibilityReport(report), sandbox: target.sandbox };
}

describe("the compatibility run on the user's groups attribute", () => {
  it('a server that lists the membership it made and drops it on revoke: complete, for one membership', async () => {
    const { report, text, sandbox } = await run({ membersFilter: 'refused', userGroups: 'served' });
    expect(report.userGroups).toMatchObject({ outcome: 'complete', reliedOn: true });
    expect(report.userGroups.note).toContain('a cap above one group cannot be seen');
    // Its evidence: the two reads of the test account's groups, after the grant and the revoke.
    expect(report.userGroups.evidence.map((e) => e.status)).toEqual([200, 200]);
    expect(report.userGroups.evidence[0]?.answer).toContain(report.group!.id);
    expect(report.userGroups.evidence[1]?.answer).not.toContain(report.group!.id);
    expect(report.verdict).toBe('fits');
    expect(report.summary).not.toContain('groups attribute');
    expect(text).toContain("The user's groups attribute: COMPLETE: ");
    expect(sandbox.listUsers().map((u) => u.userName)).not.toContain(report.testAccount);
  });

  it('a server without the members filter whose users show no groups: incomplete, and the verdict says what it costs', async () => {
    const { report, text } = await run({ membersFilter: 'refused' });
    expect(report.userGroups).toMatchObject({ outcome: 'incomplete', reliedOn: true });
    expect(report.userGroups.note).toContain(
      `lists no group for the test account, which the read-back showed is a member of group "Compat Group"`,
    );
    expect(report.summary).toContain(
      `without the members filter, the user's groups attribute did not list the group the test account was in: grants and revokes of groups whose member list does not show the account will end "could not tell"`,
    );
    // The revoke could not be told: the empty group returns no member list and nothing
    // else vouches for the absence.
    expect(report.actions.find((a) => a.action === 'revoke')?.outcome).not.toBe('works');
    expect(text).toContain("The user's groups attribute: INCOMPLETE: ");
  });

  it('a server whose members filter works: the attribute is checked and said, the verdict unchanged', async () => {
    const { report } = await run({});
    expect(report.userGroups).toMatchObject({ outcome: 'incomplete', reliedOn: false });
    expect(report.summary).toBe('the server fits (6 of 6 points fit as configured)');
  });

  it('a server that refuses the attribute: refused, said with its answer', async () => {
    const { report } = await run({ userGroups: 'refused' });
    expect(report.userGroups).toMatchObject({ outcome: 'refused' });
    expect(report.userGroups.note).toContain("refuses the user's groups attribute (400)");
    expect(report.userGroups.evidence[0]).toMatchObject({ status: 400 });
  });
});
