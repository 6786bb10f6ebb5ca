import { afterEach, describe, expect, it } from 'vitest';
import { runScimCompatibility } from '../../../src/connectors/scim/compatibility-run';
import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import { isProvisioningError } from '../../../src/domain/errors';
import type { ScimQuirks, ScimSandbox } from '../../../src/sandbox/scim';
import { startScimTarget, type ScimTarget } from '../../support/scim-target';

/*
 * Servers whose own 404 for a missing object has no body, or SCIM 1.1's shape: the
 * compatibility run reads an id no one has, says which `notFoundAnswer` makes the server fit,
 * and the connector set so takes exactly that shape for "not found" (never an HTML page).
 */
let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const withLastLogon = { lastLogonAttribute: 'lastLogin' };

function committed(sandbox: ScimSandbox) {
  return {
    users: sandbox.listUsers().map((u) => u.id),
    groups: sandbox.listGroups().map((g) => ({ id: g.id, members: g.members })),
  };
}

async function compat(quirks: ScimQuirks) {
  target = await startScimTarget({ quirks: { ...withLastLogon, ...quirks } });
  target.sandbox.seedUsers([{ userName: 'someone', lastLogon: '2026-11-01T00:00:00Z' }]);
  target.sandbox.seedGroups([{ displayName: 'Compat Group' }]);
  const before = committed(target.sandbox);
  const report = await runScimCompatibility(target.settings, target.secrets);
  return { report, before, after: committed(target.sandbox) };
}

/** What a connector with this `notFoundAnswer` makes of a read of a deleted user. */
async function readMissing(notFoundAnswer: string, quirks: ScimQuirks) {
  target = await startScimTarget({ quirks });
  const connector = new ScimConnector(
    { ...target.settings, notFoundAnswer } as ScimTarget['settings'],
    { secrets: target.secrets },
  );
  try {
    const missing = { id: 'a1b2c3-gone', accountId: 'gone', enabled: true, profile: {} };
    return await connector.readAccount(missing).then(
      (account) => ({ found: account ?? 'not found' }),
      (error: unknown) => ({ error: isProvisioningError(error) ? error.code : String(error) }),
    );
  } finally {
    await connector.close();
  }
}

describe('the compatibility run on a server whose 404 is not a SCIM error', () => {
  it.each([
    ['empty', 'without a body'],
    ['scim11Error', 'with a SCIM 1.1 error'],
  ] as const)(
    '%s: point 1 fits with notFoundAnswer set so, and the run cleans up with it',
    async (shape, said) => {
      const { report, before, after } = await compat({ notFoundAnswer: shape });
      expect(report.points[0]).toMatchObject({
        outcome: 'does not fit',
        fitsWith: [{ setting: 'notFoundAnswer', value: shape }],
        advice: `set "notFoundAnswer": "${shape}" in the connector's settings`,
      });
      const check = report.points[0]?.checks.find((c) => c.aspect === 'not found');
      expect(check?.note).toContain(`answered 404 ${said}`);
      expect(check?.evidence).toEqual([
        expect.objectContaining({
          status: 404,
          request: expect.stringMatching(/\/Users\/compat-missing-/),
        }),
      ]);
      expect(report.verdict).toBe('fits with the suggested settings');
      // The cleanup's reads took the server's 404 for "gone": nothing left, nothing said left.
      expect(report.leftBehind).toEqual([]);
      expect(after).toEqual(before);
    },
  );

  it('an HTML 404: point 1 does not fit, and no setting is offered', async () => {
    const { report } = await compat({ notFoundAnswer: 'html' });
    expect(report.points[0]?.outcome).toBe('does not fit');
    expect(report.points[0]?.fitsWith).toBeUndefined();
    expect(report.points[0]?.reason).toContain('cannot be told from a gateway');
    expect(report.suggestedSettings.map((s) => s.setting)).not.toContain('notFoundAnswer');
  });

  it('a SCIM 404: point 1 fits, with the read as its evidence', async () => {
    const { report } = await compat({});
    expect(report.points[0]?.outcome).toBe('fits');
    expect(report.points[0]?.checks.find((c) => c.aspect === 'not found')).toMatchObject({
      holds: true,
      note: expect.stringContaining('answered 404 with a SCIM error') as unknown,
    });
  });
});

describe('a SCIM connector with notFoundAnswer', () => {
  it('takes exactly the shape it is set to for "not found", and nothing else', async () => {
    expect(await readMissing('empty', { notFoundAnswer: 'empty' })).toEqual({ found: 'not found' });
    await target?.close();
    expect(await readMissing('scimError', { notFoundAnswer: 'empty' })).toEqual({
      error: 'TARGET_RESPONSE_INVALID',
    });
    await target?.close();
    expect(await readMissing('scim11Error', { notFoundAnswer: 'empty' })).toEqual({
      error: 'TARGET_RESPONSE_INVALID',
    });
    await target?.close();
    expect(await readMissing('empty', { notFoundAnswer: 'html' })).toEqual({
      error: 'TARGET_RESPONSE_INVALID',
    });
    await target?.close();
    expect(await readMissing('scim11Error', { notFoundAnswer: 'scim11Error' })).toEqual({
      found: 'not found',
    });
    await target?.close();
    // A SCIM error is always the server saying so.
    expect(await readMissing('empty', {})).toEqual({ found: 'not found' });
  });
});
