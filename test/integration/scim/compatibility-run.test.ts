import { afterEach, describe, expect, it } from 'vitest';
import {
  formatCompatibilityReport,
  type CompatibilityReport,
} from '../../../src/connectors/scim/compatibility-report';
import { runScimCompatibility } from '../../../src/connectors/scim/compatibility-run';
import {
  SERVICE_ACTIONS,
  type ActionOutcome,
  type ServiceAction,
} from '../../../src/domain/compatibility-result';
import {
  BUILT_IN_APP_PREFIX,
  BUILT_IN_APP_QUIRKS,
  type ScimSandbox,
  type ScimSandboxOptions,
} from '../../../src/sandbox/scim';
import { BASIC_PASSWORD, startScimTarget, type ScimTarget } from '../../support/scim-target';

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** The committed state a run must leave as it found it (meta.lastModified aside). */
function committed(sandbox: ScimSandbox) {
  return {
    users: sandbox.listUsers().map((u) => ({ id: u.id, userName: u.userName, active: u.active })),
    groups: sandbox
      .listGroups()
      .map((g) => ({ id: g.id, displayName: g.displayName, members: g.members })),
  };
}

interface RunCase {
  sandbox?: ScimSandboxOptions;
  settings?: Record<string, unknown>;
  /** What the server holds before the run (default: nothing). */
  seed?: (sandbox: ScimSandbox) => void;
  groupName?: string;
  /** The base URL the operator configured (default: the sandbox's right one). */
  baseUrl?: (sandbox: ScimSandbox) => string;
}

async function run(c: RunCase = {}) {
  target = await startScimTarget(c.sandbox, c.settings);
  const { sandbox } = target;
  c.seed?.(sandbox);
  const before = committed(sandbox);
  const settings =
    c.baseUrl === undefined ? target.settings : { ...target.settings, baseUrl: c.baseUrl(sandbox) };
  const report = await runScimCompatibility(
    settings,
    target.secrets,
    c.groupName === undefined ? {} : { groupName: c.groupName },
  );
  return {
    report,
    before,
    after: committed(sandbox),
    truth: sandbox.truthLog(),
    text: formatCompatibilityReport(report),
  };
}

const outcomes = (report: CompatibilityReport) => report.points.map((p) => p.outcome);

/** The action table as outcome -> actions, in the table's order. */
function actions(report: CompatibilityReport): Record<ActionOutcome, ServiceAction[]> {
  const table: Record<ActionOutcome, ServiceAction[]> = {
    works: [],
    'will fail': [],
    untested: [],
  };
  for (const verdict of report.actions) table[verdict.outcome].push(verdict.action);
  return table;
}

const EVERY_ACTION: ServiceAction[] = [...SERVICE_ACTIONS];
const except = (...left: ServiceAction[]) => EVERY_ACTION.filter((a) => !left.includes(a));
const withLastLogon = { lastLogonAttribute: 'lastLogin' };
const seedUserWithLogon = (s: ScimSandbox) =>
  s.seedUsers([{ userName: 'someone', lastLogon: '2026-11-01T00:00:00Z' }]);
const seedGroups = (s: ScimSandbox) => {
  seedUserWithLogon(s);
  s.seedGroups([{ displayName: 'Compat Group' }, { displayName: 'Second Group' }]);
};

describe('the compatibility run on a fitting server (as today)', () => {
  it('fits on all six points, each with evidence, and leaves the server as it was', async () => {
    const { report, before, after, truth, text } = await run({
      sandbox: { quirks: withLastLogon },
      seed: seedGroups,
    });

    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits', 'fits']);
    expect(report).toMatchObject({ verdict: 'fits', fits: true, suggestedSettings: [] });
    expect(report.group).toEqual(
      expect.objectContaining({ displayName: 'Compat Group', temporary: false }),
    );
    // Every check that shows something holds names the requests and answers behind it.
    for (const point of report.points) {
      for (const check of point.checks.filter((c) => c.holds === true)) {
        expect(check.evidence.length, `${point.number}: ${check.note}`).toBeGreaterThan(0);
      }
    }
    expect(actions(report)).toEqual({ works: EVERY_ACTION, 'will fail': [], untested: [] });
    // Each write's note says how it was seen: read back, or in the write's own answer.
    const notes = report.points.flatMap((p) => p.checks.map((c) => c.note));
    const writes = notes.filter((n) => /^PATCH (add|remove|replace|active)/.test(n));
    expect(writes.length).toBeGreaterThanOrEqual(4);
    for (const note of writes) {
      expect(note).toMatch(/read back \(\d+ reads?\)|shown in the write's own answer/);
    }
    // The truth: the test account was created, granted, revoked, locked, unlocked, deleted.
    expect(truth.filter((e) => e.accountId === report.testAccount).map((e) => e.change)).toEqual([
      'account created',
      'member added',
      'member removed',
      'account updated',
      'password set',
      'account locked',
      'account unlocked',
      'account deleted',
    ]);
    expect(after).toEqual(before);
    expect(report.leftBehind).toEqual([]);
    expect(text).toMatch(/^1\. endpoints under a path that ends in \/scim\/v2\/\s+FITS$/m);
    expect(text).toContain('Verdict: the server fits (6 of 6 points fit as configured)');
    expect(text).not.toMatch(/"password":"(?!\[redacted\])/);
  });

  it('grants and revokes the group the operator names', async () => {
    const { report } = await run({
      sandbox: { quirks: withLastLogon },
      seed: seedGroups,
      groupName: 'Second Group',
    });
    expect(report.group?.displayName).toBe('Second Group');
    expect(report.verdict).toBe('fits');
  });

  it('fits 5 of 6 without a last-logon attribute, and says last logon will fail', async () => {
    const { report } = await run({ seed: (s) => s.seedGroups([{ displayName: 'Compat Group' }]) });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits', 'does not fit']);
    expect(report.summary).toBe(
      'the server does not fit: point(s) 6 (5 of 6 points fit as configured)',
    );
    expect(actions(report)).toEqual({
      works: except('lastLogon'),
      'will fail': ['lastLogon'],
      untested: [],
    });
    expect(report.points[5]?.advice).toContain('advanced.lastLogonAttribute');
  });

  it('on a fresh server with no group: grants and revokes a temporary group, tries co on it, and deletes it', async () => {
    const { report, before, after, truth } = await run({
      sandbox: { quirks: withLastLogon },
      seed: seedUserWithLogon,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits', 'fits']);
    expect(report.group).toMatchObject({
      temporary: true,
      displayName: `${report.testAccount}-group`,
    });
    const co = report.points[3]?.checks.find((c) => c.aspect === 'co');
    expect(co).toMatchObject({ holds: true });
    expect(co?.evidence.at(-1)?.request).toMatch(/filter=displayName\+co\+/);
    expect(truth.filter((e) => e.groupId === report.group?.id).map((e) => e.change)).toEqual([
      'member added',
      'member removed',
    ]);
    expect(after).toEqual(before);
    expect(report.cleanup).toContain(`temporary test group "${report.testAccount}-group" removed`);
  });
});

describe("the compatibility run on applications' built-in SCIM services, one misfit at a time", () => {
  it('members only as internal ids: point 3 does not fit, fits with memberValue: scimId, which grant needs', async () => {
    const { report, before, after, truth } = await run({
      sandbox: { quirks: { ...withLastLogon, memberValuesMustBeInternalIds: true } },
      seed: seedGroups,
    });

    expect(outcomes(report)).toEqual(['fits', 'fits', 'does not fit', 'fits', 'fits', 'fits']);
    expect(report.points[2]).toMatchObject({
      fitsWith: [{ setting: 'memberValue', value: 'scimId' }],
      advice: `set "memberValue": "scimId" in the connector's settings`,
    });
    expect(report.points[2]?.checks[0]?.evidence.at(-1)).toMatchObject({ status: 400 });
    expect(report.suggestedSettings).toEqual([
      expect.objectContaining({ setting: 'memberValue', value: 'scimId', point: 3, tried: true }),
    ]);
    expect(report.verdict).toBe('fits with the suggested settings');
    expect(report.summary).toBe(
      'the server fits with memberValue: scimId (5 of 6 points fit as configured)',
    );
    const grant = report.actions.find((a) => a.action === 'grant');
    expect(grant).toMatchObject({
      outcome: 'works',
      needs: [{ setting: 'memberValue', value: 'scimId' }],
    });
    expect(actions(report)).toEqual({ works: EVERY_ACTION, 'will fail': [], untested: [] });
    // The server really took the member by its id, and lost it again on revoke.
    const user = truth.find((e) => e.accountId === report.testAccount);
    expect(
      truth
        .filter((e) => e.userId === user?.userId && e.groupId !== undefined)
        .map((e) => e.change),
    ).toEqual(['member added', 'member removed']);
    expect(after).toEqual(before);
  });

  it('no co, with groups: point 4 does not fit and group search will fail; everything else works', async () => {
    const { report } = await run({
      sandbox: { quirks: { ...withLastLogon, filterOperators: ['eq'] } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'does not fit', 'fits', 'fits']);
    expect(report.points[3]?.reason).toContain('400 invalidFilter');
    expect(actions(report)).toEqual({
      works: except('groupSearch'),
      'will fail': ['groupSearch'],
      untested: [],
    });
  });

  it('no co on a fresh server: co is still tried, and point 4 does not fit (never "fits" unseen)', async () => {
    const { report, before, after } = await run({
      sandbox: { quirks: { ...withLastLogon, filterOperators: ['eq'] } },
      seed: seedUserWithLogon,
    });
    expect(report.points[3]?.outcome).toBe('does not fit');
    expect(report.points[3]?.checks.find((c) => c.aspect === 'co')).toMatchObject({
      holds: false,
      evidence: [expect.objectContaining({ status: 400, request: expect.stringMatching(/co/) })],
    });
    expect(report.steps.map((s) => s.name)).not.toContainEqual(expect.stringMatching(/skipped/));
    expect(after).toEqual(before);
  });

  it('password not writable by PATCH: point 5 does not fit, setPassword will fail, the rest works', async () => {
    const { report, truth } = await run({
      sandbox: { quirks: { ...withLastLogon, passwordNotPatchable: true } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'does not fit', 'fits']);
    expect(report.points[4]?.reason).toMatch(
      /^PATCH password was refused \(the server declares changePassword: false\): .*400 invalidPath/,
    );
    expect(report.points[4]?.advice).toBe('on this server these will fail: setPassword');
    expect(actions(report)).toEqual({
      works: except('setPassword'),
      'will fail': ['setPassword'],
      untested: [],
    });
    expect(report.actions.find((a) => a.action === 'create')?.reason).toContain(
      'a password given on create may be ignored',
    );
    expect(truth.map((e) => e.change)).not.toContain('password set');
  });

  it('password PATCH answered 2xx while changePassword is declared false: could not tell, naming why', async () => {
    const { report, truth } = await run({
      sandbox: { quirks: { ...withLastLogon, passwordPatchIgnored: true } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'could not tell', 'fits']);
    const check = report.points[4]?.checks.find((c) => c.aspect === 'password');
    expect(check).toMatchObject({
      holds: undefined,
      evidence: [expect.objectContaining({ status: 204, request: expect.stringMatching(/PATCH/) })],
    });
    expect(report.points[4]?.reason).toMatch(
      /^password: could not tell: PATCH password was answered 2xx, but the server declares changePassword: false/,
    );
    expect(report.points[4]?.advice).toContain('sign in');
    expect(report.verdict).toBe('could not tell');
    expect(actions(report)).toEqual({
      works: except('setPassword'),
      'will fail': [],
      untested: ['setPassword'],
    });
    // The truth: the server did not set the password the answer seemed to accept, and the
    // run's journal does not say it did.
    expect(truth.map((e) => e.change)).not.toContain('password set');
    expect((report.changes ?? []).map((c) => c.change)).not.toContain('password set');
  });

  it('no groups at all: memberships could not be tried and will fail, co is tried on Users', async () => {
    const { report, before, after } = await run({
      sandbox: { quirks: { ...withLastLogon, noGroups: true } },
      seed: seedUserWithLogon,
    });
    expect(outcomes(report)).toEqual([
      'fits',
      'fits',
      'could not tell',
      'fits',
      'could not tell',
      'fits',
    ]);
    expect(report.points[2]).toMatchObject({
      reason: 'member value: not tried: the server has no groups (GET /Groups answered 404)',
      advice: expect.stringContaining('the server has no groups: memberships cannot be managed'),
    });
    expect(report.points[3]?.checks.find((c) => c.aspect === 'co')).toMatchObject({
      holds: true,
      note: expect.stringMatching(/^userName co ".+" found the test account$/),
    });
    expect(actions(report)).toEqual({
      works: ['create', 'update', 'lock', 'unlock', 'setPassword', 'delete', 'lastLogon'],
      'will fail': ['grant', 'revoke', 'setMemberships', 'import', 'groupSearch'],
      untested: [],
    });
    expect(report.verdict).toBe('could not tell');
    expect(after).toEqual(before);
  });

  it('co answered 200 with an empty list and no group to find: co is not taken to fit on nothing', async () => {
    const { report, before, after } = await run({
      // Groups are made in the application only, and there is none yet: the run has no
      // group to look for; co is parsed and never evaluated.
      sandbox: {
        quirks: { ...withLastLogon, coMatchesNothing: true, groupCreateNotAllowed: true },
      },
      seed: seedUserWithLogon,
    });
    expect(report.group).toBeUndefined();
    const co = report.points[3]?.checks.filter((c) => c.aspect === 'co') ?? [];
    // The empty Groups answer shows nothing; the test account, which the Users search by part
    // of its name should have found, is the positive control that shows co does not work.
    expect(co.map((c) => c.holds)).toEqual([undefined, false]);
    expect(co[0]?.note).toContain('an empty answer shows nothing');
    expect(co[1]).toMatchObject({
      note: expect.stringMatching(/^userName co ".+" did not find the test account$/) as unknown,
      evidence: [expect.objectContaining({ status: 200, request: expect.stringMatching(/co/) })],
    });
    expect(report.points[3]?.outcome).toBe('does not fit');
    expect(after).toEqual(before);
  });

  it('co with no group to find, on a server whose co works: fits on the test account found on Users, not on the empty list', async () => {
    const { report } = await run({
      sandbox: { quirks: { ...withLastLogon, groupCreateNotAllowed: true } },
      seed: seedUserWithLogon,
    });
    const co = report.points[3]?.checks.filter((c) => c.aspect === 'co') ?? [];
    expect(co.map((c) => c.holds)).toEqual([undefined, true]);
    expect(report.points[3]?.outcome).toBe('fits');
    // The negative control ran: a userName no user has found no user.
    expect(report.steps.map((step) => step.name)).toContainEqual(
      expect.stringMatching(/^search users for a userName no user has \(userName co "compat-none-/),
    );
  });

  it('co ignored, one group on the server: the negative control catches what the positive one cannot', async () => {
    const { report } = await run({
      sandbox: { quirks: { ...withLastLogon, ignoreFilters: true } },
      seed: (s) => {
        seedUserWithLogon(s);
        s.seedGroups([{ displayName: 'Compat Group' }]);
      },
    });
    const co = report.points[3]?.checks.filter((c) => c.aspect === 'co') ?? [];
    expect(co.map((c) => c.holds)).toEqual([true, false]);
    expect(co[1]?.note).toMatch(
      /^displayName co "compat-none-[0-9a-f]+" answered 1 that does not match \("Compat Group"\): the server ignores the filter$/,
    );
    expect(report.points[3]?.outcome).toBe('does not fit');
  });

  it('endpoints under a prefix, host configured: point 1 fits with the base URL the run found and tried', async () => {
    const { report, before, after } = await run({
      sandbox: {
        prefix: BUILT_IN_APP_PREFIX,
        quirks: { ...withLastLogon, outsidePrefix: 'html200' },
      },
      seed: seedGroups,
      baseUrl: (s) => new URL(s.endpoint).origin,
    });
    const found = `${new URL(target!.sandbox.endpoint).origin}/api/auth`;
    expect(outcomes(report)).toEqual(['does not fit', 'fits', 'fits', 'fits', 'fits', 'fits']);
    expect(report.points[0]).toMatchObject({
      fitsWith: [{ setting: 'baseUrl', value: found }],
      advice: `set "baseUrl": "${found}" in the connector's settings`,
    });
    expect(report.points[0]?.reason).toContain('not a SCIM answer');
    expect(report.suggestedSettings).toEqual([
      expect.objectContaining({ setting: 'baseUrl', value: found, tried: true }),
    ]);
    expect(report.verdict).toBe('fits with the suggested settings');
    expect(report.actions.every((a) => a.outcome === 'works')).toBe(true);
    expect(report.actions.every((a) => a.needs?.some((n) => n.setting === 'baseUrl'))).toBe(true);
    expect(after).toEqual(before);
  });

  it('Basic only, bearer configured: point 2 does not fit, says to set Basic, and creates nothing', async () => {
    const { report, truth } = await run({
      sandbox: { auth: { type: 'basic', username: 'svc', password: BASIC_PASSWORD } },
      settings: { auth: { type: 'bearer', tokenSecret: 'scim-token' } },
    });
    expect(outcomes(report)).toEqual([
      'fits',
      'does not fit',
      'could not tell',
      'could not tell',
      'could not tell',
      'could not tell',
    ]);
    expect(report.points[1]?.reason).toContain('WWW-Authenticate: Basic');
    expect(report.suggestedSettings).toEqual([
      expect.objectContaining({ setting: 'auth.type', value: 'basic', point: 2, tried: false }),
    ]);
    expect(report.points[5]?.advice).toBe(
      'first fix what stopped the run (the server refused the credentials (point 2)), then run again',
    );
    expect(actions(report)).toEqual({ works: [], 'will fail': [], untested: EVERY_ACTION });
    expect(report.verdict).toBe('does not fit');
    expect(truth).toEqual([]);
    expect(report.cleanup).toBe('nothing to remove: the test account was not created');
  });

  it('Basic only, Basic configured: point 2 fits', async () => {
    const { report } = await run({
      sandbox: {
        auth: { type: 'basic', username: 'svc', password: BASIC_PASSWORD },
        quirks: withLastLogon,
      },
      seed: seedGroups,
    });
    expect(report.points[1]).toMatchObject({
      outcome: 'fits',
      reason:
        'the server accepted the basic credentials (answered 200) and refused a wrong one (answered 401)',
    });
    // The control's evidence: the same search, refused with the wrong credential.
    const check = report.points[1]?.checks.find((c) => c.aspect === 'credentials');
    expect(check?.evidence.map((e) => e.status)).toEqual([200, 401]);
  });

  it('a server that ignores authentication: point 2 says the credentials are not checked, never "fits"', async () => {
    const { report, text } = await run({
      // The server takes any caller; the connector sends its bearer token.
      sandbox: { auth: { type: 'none' }, quirks: withLastLogon },
      settings: { auth: { type: 'bearer', tokenSecret: 'scim-token' } },
      seed: seedGroups,
    });
    expect(report.points[1]).toMatchObject({
      outcome: 'could not tell',
      reason: expect.stringContaining('credentials not checked by the server') as unknown,
    });
    expect(report.points[1]?.checks[0]?.evidence.map((e) => e.status)).toEqual([200, 200]);
    expect(report.verdict).not.toBe('fits');
    // The wrong credential the run made up is nowhere in what it reports.
    expect(text).not.toMatch(/compat-refuse-me-[0-9a-f]/);
    expect(JSON.stringify(report)).not.toMatch(/compat-refuse-me-[0-9a-f]/);
  });

  it('only the other remove form: point 5 fits with memberRemoveStyle: valueArray, which revoke needs', async () => {
    const { report, after, before } = await run({
      sandbox: { quirks: { ...withLastLogon, memberRemoveStyle: 'valueArray' } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'does not fit', 'fits']);
    expect(report.points[4]?.fitsWith).toEqual([
      { setting: 'memberRemoveStyle', value: 'valueArray' },
    ]);
    expect(report.actions.find((a) => a.action === 'revoke')).toMatchObject({
      outcome: 'works',
      needs: [{ setting: 'memberRemoveStyle', value: 'valueArray' }],
    });
    expect(report.verdict).toBe('fits with the suggested settings');
    expect(after).toEqual(before);
  });

  it('no filter in a user PATCH path: point 5 fits with emailUpdateStyle: wholeList, which update needs', async () => {
    const { report, after, before, truth } = await run({
      sandbox: { quirks: { ...withLastLogon, userPatchPathFiltersRefused: true } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'does not fit', 'fits']);
    const refused = report.points[4]?.checks.find(
      (c) => c.aspect === 'user attributes' && c.withSetting === undefined,
    );
    expect(refused).toMatchObject({
      holds: false,
      evidence: [
        expect.objectContaining({ status: 400, answer: expect.stringMatching(/invalidPath/) }),
      ],
    });
    expect(report.points[4]?.fitsWith).toEqual([
      { setting: 'emailUpdateStyle', value: 'wholeList' },
    ]);
    expect(report.suggestedSettings).toEqual([
      expect.objectContaining({
        setting: 'emailUpdateStyle',
        value: 'wholeList',
        tried: true,
        reason: expect.stringContaining('addresses the service did not set are removed') as unknown,
      }),
    ]);
    expect(report.actions.find((a) => a.action === 'update')).toMatchObject({
      outcome: 'works',
      needs: [{ setting: 'emailUpdateStyle', value: 'wholeList' }],
    });
    expect(report.verdict).toBe('fits with the suggested settings');
    // The truth: the refused form changed nothing; the whole-list form updated the account once.
    const updates = truth.filter(
      (e) => e.accountId === report.testAccount && e.change === 'account updated',
    );
    expect(updates).toHaveLength(1);
    expect(after).toEqual(before);
  });

  it('PATCH silently ignored: point 5 does not fit, and the account is still removed', async () => {
    const { report, before, after } = await run({
      sandbox: { quirks: { ...withLastLogon, ignorePatchOps: true } },
      seed: seedGroups,
    });
    expect(report.points[4]?.outcome).toBe('does not fit');
    expect(actions(report)['will fail']).toEqual(expect.arrayContaining(['update', 'lock']));
    expect(after).toEqual(before);
  });

  it('PATCH answered with what was asked, nothing stored: no write is taken to fit on its answer alone', async () => {
    const { report, truth } = await run({
      sandbox: {
        quirks: {
          ...withLastLogon,
          ignorePatchOps: true,
          ignoredPatchEchoesRequest: true,
          // Groups read whole: the PATCH answers list the members, the test account among them.
          membersFilter: 'refused',
        },
      },
      seed: (s) => {
        seedUserWithLogon(s);
        s.seedGroups([{ displayName: 'Compat Group', members: ['someone'] }]);
      },
    });
    // The truth: no PATCH changed anything.
    expect(
      truth.filter((e) => e.change !== 'account created' && e.change !== 'account deleted'),
    ).toEqual([]);
    expect(report.points[4]?.outcome).toBe('does not fit');
    expect(actions(report)['will fail']).toEqual(
      expect.arrayContaining(['update', 'lock', 'grant']),
    );
    expect(actions(report).works).not.toEqual(expect.arrayContaining(['lock']));
  });

  it('filters silently ignored: point 4 does not fit and group search will fail, though lookups find what they ask', async () => {
    const { report, text } = await run({
      sandbox: { quirks: { ...withLastLogon, ignoreFilters: true } },
      seed: (s) => {
        seedUserWithLogon(s);
        // Members filter ignored too: groups are read whole, and an empty one shows no list.
        s.seedGroups([
          { displayName: 'Compat Group', members: ['someone'] },
          { displayName: 'Other' },
        ]);
      },
    });
    expect(report.points[3]?.outcome).toBe('does not fit');
    expect(text).toContain('the server ignores the filter');
    expect(actions(report)['will fail']).toContain('groupSearch');
    // The service reads on past what the filter should have excluded: its actions still work.
    expect(actions(report).works).toEqual(expect.arrayContaining(['create', 'grant', 'delete']));
  });

  it('a create answered 201 and never stored: create will fail, not "works"', async () => {
    const { report, truth } = await run({
      sandbox: { quirks: { ...withLastLogon, createNotStored: true } },
      seed: seedGroups,
    });
    expect(truth.filter((e) => e.change === 'account created')).toEqual([]);
    expect(actions(report)['will fail']).toContain('create');
    expect(report.actions.find((a) => a.action === 'create')?.reason).toContain(
      'but a read by that id does not find it',
    );
  });

  it('DELETE refused: delete will fail, and the cleanup names the account and group left behind', async () => {
    const { report, truth, after } = await run({
      sandbox: { quirks: { ...withLastLogon, deleteNotAllowed: true } },
      seed: seedUserWithLogon,
    });
    expect(actions(report)['will fail']).toEqual(['delete']);
    const user = truth.find((e) => e.accountId === report.testAccount);
    expect(report.leftBehind).toEqual([
      expect.objectContaining({ kind: 'account', name: report.testAccount, id: user?.userId }),
      expect.objectContaining({
        kind: 'group',
        name: `${report.testAccount}-group`,
        id: report.group?.id,
      }),
    ]);
    expect(report.cleanup).toMatch(/^left behind, remove by hand: account "compat-test-/);
    // What the report names is what the server really holds.
    expect(after.users.map((u) => u.userName)).toContain(report.testAccount);
    expect(after.groups.map((g) => g.id)).toContain(report.group?.id);
  });

  it("the whole built-in service, fresh with no group yet (issue 17's case): every point exactly right", async () => {
    const { report, before, after, text } = await run({
      sandbox: { prefix: BUILT_IN_APP_PREFIX, quirks: { ...BUILT_IN_APP_QUIRKS } },
      baseUrl: (s) => new URL(s.endpoint).origin,
    });
    const origin = new URL(target!.sandbox.endpoint).origin;

    expect(outcomes(report)).toEqual([
      'does not fit',
      'fits',
      'does not fit',
      'does not fit',
      'does not fit',
      'does not fit',
    ]);
    expect(report.points.map((p) => p.fitsWith)).toEqual([
      [{ setting: 'baseUrl', value: `${origin}/api/auth` }],
      undefined,
      [{ setting: 'memberValue', value: 'scimId' }],
      undefined,
      undefined,
      undefined,
    ]);
    expect(report.points[3]?.checks.find((c) => c.aspect === 'co')).toMatchObject({
      holds: false,
      note: expect.stringContaining('400 invalidFilter'),
    });
    expect(report.suggestedSettings.map((s) => [s.setting, s.value, s.tried])).toEqual([
      ['baseUrl', `${origin}/api/auth`, true],
      ['memberValue', 'scimId', true],
    ]);
    expect(actions(report)).toEqual({
      works: except('setPassword', 'groupSearch', 'lastLogon'),
      'will fail': ['setPassword', 'groupSearch', 'lastLogon'],
      untested: [],
    });
    expect(report.declared).toEqual({
      changePassword: false,
      patch: true,
      filter: true,
      filterMaxResults: 100,
    });
    expect(report.summary).toBe(
      `the server does not fit: point(s) 4, 5, 6 (1 of 6 points fit as configured; set baseUrl: ${origin}/api/auth, memberValue: scimId as well)`,
    );
    expect(after).toEqual(before);
    expect(text).toContain(`3. the account ID accepted as a group member value`);
    expect(text).toContain('   fits with memberValue: scimId');
    expect(text).toMatch(/^ {2}setPassword {5}WILL FAIL {2}PATCH password: .*\[point 5\]$/m);
    expect(text).toContain(`What will work (with baseUrl: ${origin}/api/auth):`);
  });

  it('a create answered without an id: the run reads the account back, as the service does, and says so', async () => {
    const { report, before, after } = await run({
      sandbox: { quirks: { ...withLastLogon, createAnswer: 'withoutId' } },
      seed: seedGroups,
    });
    expect(outcomes(report)).toEqual(['fits', 'fits', 'fits', 'fits', 'fits', 'fits']);
    expect(report.actions.find((a) => a.action === 'create')).toMatchObject({
      outcome: 'works',
      reason: expect.stringContaining('the server created the account but answered without an id'),
    });
    expect(after).toEqual(before);
  });

  it('a connector without credentials cannot have point 2 told', async () => {
    const { report } = await run({
      sandbox: { auth: { type: 'none' }, quirks: withLastLogon },
      seed: seedGroups,
    });
    expect(report.points[1]).toMatchObject({
      outcome: 'could not tell',
      advice: 'configure bearer or Basic credentials for the connector and run again',
    });
  });
});
