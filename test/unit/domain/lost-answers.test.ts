import { describe, expect, it } from 'vitest';
import { accountStep, type AccountAction } from '../../../src/domain/account-step';
import type { SerializedError } from '../../../src/domain/errors';
import type { GroupRef } from '../../../src/domain/group';
import {
  accountWriteChangedNothing,
  describeLostAnswer,
  mayHaveBeenApplied,
  membershipCallChangedNothing,
} from '../../../src/domain/lost-answer';
import { membershipStep } from '../../../src/domain/membership-step';
import type { MembershipAction } from '../../../src/domain/membership-plan';
import type { StepContext } from '../../../src/domain/step-context';
import { driveAsync, type IoResult } from '../../../src/domain/step-machine';
import {
  CONSISTENT,
  LAGGING,
  ScriptedIo,
  stepContext,
  type OpInput,
  ADA,
  START,
  linkedRecord as record,
  OPS,
  SALES,
} from './scripted-io';

/**
 * scim-interop.md, "answer lost after the write was applied": a write whose every answer was
 * lost ends on the read-back, never on the error alone; what the read-back shows in place is
 * journaled as the request's own change, what it cannot show is not (DESIGN invariant 11).
 */

/** The error the transport gives after a reset on every attempt of a sent write. */
const RESET: SerializedError = {
  code: 'TARGET_UNREACHABLE',
  message: 'entra: PATCH /Groups/g-sales failed (UND_ERR_SOCKET)',
  retryable: true,
  object: 'entra',
  details: { maybeApplied: true },
};
/** A gateway's 504 after the transport's retries. */
const GATEWAY: SerializedError = {
  code: 'TARGET_UNAVAILABLE',
  message: 'connector "entra": DELETE ... answered 504',
  retryable: true,
  status: 504,
};
const lost = (error: SerializedError) => (): IoResult<never> => ({ ok: false, error });

function reads(...sequence: (string[] | SerializedError)[]) {
  return (_input: unknown, call: number) => {
    const answer = sequence[Math.min(call, sequence.length) - 1]!;
    return Array.isArray(answer)
      ? { groupIds: answer, names: {}, notices: [] }
      : { ok: false, error: answer };
  };
}

function grant(
  action: MembershipAction,
  groups: GroupRef[],
  io: ScriptedIo,
  capabilities = LAGGING,
) {
  return driveAsync(
    membershipStep({
      ...stepContext(capabilities),
      action,
      groups: groups.map((group) => ({ name: group.displayName })),
    }),
    io,
  );
}

function membershipIo(answers: ConstructorParameters<typeof ScriptedIo>[0]) {
  return new ScriptedIo({
    findAccount: () => ({ account: ADA, record: record() }),
    lookUpRoles: (input: OpInput) =>
      (input.selectors ?? []).map(
        (s) => [SALES, OPS].find((g) => 'name' in s && g.displayName === s.name) ?? null,
      ),
    ...answers,
  });
}

describe('which failed writes may have been applied', () => {
  it('a reset or timeout after sending, or a 5xx, may; a refusal, a 429 or a refused connection may not', () => {
    expect(mayHaveBeenApplied(RESET)).toBe(true);
    expect(mayHaveBeenApplied(GATEWAY)).toBe(true);
    const refused = { ...RESET, details: { maybeApplied: false } };
    expect(mayHaveBeenApplied(refused)).toBe(false);
    const rejected = {
      code: 'GRAPH_REQUEST_REJECTED' as const,
      message: 'x',
      retryable: false,
      status: 400,
    };
    expect(mayHaveBeenApplied(rejected)).toBe(false);
    const throttled = {
      code: 'TARGET_THROTTLED' as const,
      message: 'x',
      retryable: false,
      status: 429,
    };
    expect(mayHaveBeenApplied(throttled)).toBe(false);
    // ... unless an attempt before it was answered 503/504 or reset: that one may have been applied.
    const afterLost = { ...throttled, details: { maybeApplied: true } };
    expect(mayHaveBeenApplied(afterLost)).toBe(true);
    expect(describeLostAnswer(afterLost)).toBe(
      "answered 429 (TARGET_THROTTLED) after an earlier attempt's answer was lost",
    );
    expect(describeLostAnswer(GATEWAY)).toMatch(/^answered 50\d \(TARGET_UNAVAILABLE\)$/);
  });
});

describe('which failed writes certainly changed nothing (their intent may be withdrawn)', () => {
  const throttled: SerializedError = {
    code: 'TARGET_THROTTLED',
    message: 'x',
    retryable: false,
    status: 429,
  };
  const refusal = { groupId: 'g1', change: 'added', code: 'TARGET_THROTTLED', message: 'x' };

  it('an account write refused or throttled did; one after a lost answer, or lost, may not have', () => {
    expect(accountWriteChangedNothing(throttled)).toBe(true);
    expect(accountWriteChangedNothing({ ...throttled, details: { maybeApplied: true } })).toBe(
      false,
    );
    expect(accountWriteChangedNothing(GATEWAY)).toBe(false);
    expect(accountWriteChangedNothing(RESET)).toBe(false);
  });

  it('a membership call only when its error lists every write, each refused, none answered', () => {
    const listed = (failed: unknown[], written: unknown[] = []) => ({
      ...throttled,
      details: { failed, written },
    });
    expect(membershipCallChangedNothing(listed([{ ...refusal, maybeApplied: false }]))).toBe(true);
    // Nothing sent at all (the groups could not be read first).
    expect(membershipCallChangedNothing(listed([]))).toBe(true);
    expect(membershipCallChangedNothing(listed([{ ...refusal, maybeApplied: true }]))).toBe(false);
    const done = { groupId: 'g2', change: 'added', outcome: 'applied' };
    expect(
      membershipCallChangedNothing(listed([{ ...refusal, maybeApplied: false }], [done])),
    ).toBe(false);
    // An error that lists nothing (a read after the writes failed) may hide an applied write.
    expect(membershipCallChangedNothing(throttled)).toBe(false);
  });
});

describe('membership step: a write whose answer was lost', () => {
  it('succeeds on a read-back that shows the grant, journals it once as its own, and does not send it again', async () => {
    const io = membershipIo({
      readMemberships: reads([], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES], io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes).toEqual([
      { change: 'member added', groupId: 'g-sales', groupName: 'Sales' },
    ]);
    expect(outcome.record?.granted).toEqual(['g-sales']);
    expect(outcome.notices).toContain(
      'membership write: its answer was lost (TARGET_UNREACHABLE); the read-back shows it in place: added Sales (g-sales)',
    );
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
    expect(outcome.verification).toEqual({ reads: 1, elapsedMs: 0, visible: true });
  });

  it('re-reads a lagging target within the visibility window until the revoke shows', async () => {
    const io = membershipIo({
      readMemberships: reads(['g-sales'], ['g-sales'], ['g-sales'], []),
      writeMemberships: lost(GATEWAY),
    });
    const outcome = await grant('revoke', [SALES], io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes).toEqual([
      { change: 'member removed', groupId: 'g-sales', groupName: 'Sales' },
    ]);
    expect(outcome.record?.revoked).toEqual(['g-sales']);
    expect(io.callsOf('readMemberships').map((c) => (c.at - START) / 1000)).toEqual([0, 0, 1, 3]);
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
  });

  it('journals nothing for a group that was a member before: the read-back shows no change', async () => {
    const io = membershipIo({
      readMemberships: reads(['g-sales'], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES], io, CONSISTENT);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes).toEqual([]);
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
  });

  it('fails with the write error naming what the read-back does not show, and journals what it does', async () => {
    const io = membershipIo({
      readMemberships: reads([], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES, OPS], io);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('TARGET_UNREACHABLE');
    expect(outcome.error?.message).toContain(
      'the read-back does not show that the change was applied',
    );
    expect(outcome.error?.details?.missing).toEqual([{ id: 'g-ops', name: 'Ops' }]);
    expect(outcome.changes).toEqual([
      { change: 'member added', groupId: 'g-sales', groupName: 'Sales' },
    ]);
    expect(outcome.record?.granted).toEqual(['g-sales']);
    expect(outcome.notices.join('\n')).toContain(
      'no read-back after it shows it in place: added Ops (g-ops)',
    );
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
  });

  it('says it could not tell, journals and records nothing, when the read-back cannot be made', async () => {
    const io = membershipIo({
      readMemberships: reads([], GATEWAY),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES], io);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('TARGET_UNREACHABLE');
    expect(outcome.error?.message).toContain('could not tell whether the change was applied');
    expect(outcome.notices.join('\n')).toContain(
      'reading back failed (TARGET_UNAVAILABLE): could not tell whether it was applied: added Sales (g-sales)',
    );
    expect(outcome.changes).toEqual([]);
    expect(outcome.record?.granted).toBeUndefined();
  });

  it('takes a read that does not show the account as showing nothing, not a revoke in place', async () => {
    const notFound: SerializedError = {
      code: 'ACCOUNT_NOT_FOUND',
      message: 'gone',
      retryable: false,
    };
    const io = membershipIo({
      readMemberships: reads(['g-sales'], notFound),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('revoke', [SALES], io);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.error?.message).toContain('no read back within 30 s shows it');
    expect(outcome.record?.revoked).toBeUndefined();
  });

  it('ends on a refusal or an unsent write at once, without a read-back', async () => {
    for (const error of [
      { code: 'GRAPH_REQUEST_REJECTED' as const, message: 'no', retryable: false, status: 400 },
      { ...RESET, details: { maybeApplied: false } },
    ]) {
      const io = membershipIo({ readMemberships: reads([]), writeMemberships: lost(error) });
      const outcome = await grant('grant', [SALES], io);
      expect(outcome).toMatchObject({ ok: false, error, changes: [] });
      expect(io.callsOf('readMemberships')).toHaveLength(1);
    }
  });

  it('keeps what a write failing in part answered, and reads back only the rest', async () => {
    const written = [
      { groupId: 'g-ops', groupName: 'Ops', change: 'added', outcome: 'applied', maybeOurs: false },
    ];
    const io = membershipIo({
      readMemberships: reads([], ['g-sales', 'g-ops']),
      writeMemberships: lost({ ...GATEWAY, details: { written } }),
    });
    const outcome = await grant('grant', [SALES, OPS], io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes.map((c) => c.groupId).sort()).toEqual(['g-ops', 'g-sales']);
    expect(outcome.notices.join('\n')).toContain('shows it in place: added Sales (g-sales)');
    expect(outcome.notices.join('\n')).not.toContain('Ops (g-ops)');
  });
});

describe('membership step: a write call that lists its failed writes', () => {
  const refusal = {
    code: 'GRAPH_PERMISSION_MISSING' as const,
    message: 'connector "entra": POST ... answered 403 Authorization_RequestDenied',
    retryable: false,
    status: 403,
    object: 'g-ops',
  };

  it('reads back only the writes whose answers were lost, and fails by the refusal', async () => {
    const failed = [
      {
        groupId: 'g-ops',
        change: 'added',
        code: refusal.code,
        status: 403,
        message: 'no',
        maybeApplied: false,
      },
      {
        groupId: 'g-sales',
        change: 'added',
        code: 'TARGET_UNAVAILABLE',
        status: 504,
        message: 'lost',
        maybeApplied: true,
      },
    ];
    const io = membershipIo({
      // The account is in Ops by someone else's hand; the read before lags and shows nothing.
      readMemberships: reads([], ['g-sales', 'g-ops']),
      writeMemberships: lost({ ...refusal, details: { written: [], failed } }),
    });
    const outcome = await grant('grant', [OPS, SALES], io);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'GRAPH_PERMISSION_MISSING' } });
    expect(outcome.changes).toEqual([
      { change: 'member added', groupId: 'g-sales', groupName: 'Sales' },
    ]);
    expect(io.callsOf('readMemberships').at(-1)?.input.groupIds).toEqual(['g-sales']);
    expect(outcome.notices.join('\n')).toContain('answered 504 (TARGET_UNAVAILABLE)');
  });

  it('never reads back a call that failed before sending anything, however it failed', async () => {
    const io = membershipIo({
      readMemberships: reads([], ['g-sales']),
      writeMemberships: lost({ ...GATEWAY, details: { written: [], failed: [] } }),
    });
    const outcome = await grant('grant', [SALES], io);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TARGET_UNAVAILABLE' },
      changes: [],
    });
    expect(io.callsOf('readMemberships')).toHaveLength(1);
    expect(outcome.record?.granted).toBeUndefined();
  });
});

function account(action: AccountAction, io: ScriptedIo, context: Partial<StepContext> = {}) {
  return driveAsync(
    accountStep({
      ...stepContext(LAGGING),
      ...context,
      action,
      profile: { accountId: ADA.accountId, displayName: 'Ada Lovelace', givenName: 'Ada' },
      lastPasswordUse: false,
    }),
    io,
  );
}

describe('account step: a write whose answer was lost', () => {
  it('a lock the read-back shows succeeds and is journaled once', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      setAccountEnabled: lost(RESET),
      readAccount: (_input, call) => ({ ...ADA, enabled: call < 2 }),
    });
    const outcome = await account('lock', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account locked' }] });
    expect(outcome.record?.enabled?.value).toBe(false);
    expect(outcome.notices).toContain(
      'lock of account "ada@contoso.example": its answer was lost (TARGET_UNREACHABLE); the read-back shows it applied',
    );
    expect(io.callsOf('setAccountEnabled')).toHaveLength(1);
  });

  it('an unlock no read-back shows fails with the write error, journaling nothing', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: { ...ADA, enabled: false }, record: record() }),
      setAccountEnabled: lost(GATEWAY),
      readAccount: () => ({ ...ADA, enabled: false }),
    });
    const outcome = await account('unlock', io);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNAVAILABLE' },
    });
    expect(outcome.error?.message).toContain(
      'no read-back shows it applied after 9 reads over 30 s',
    );
    expect(outcome.record?.enabled).toBeUndefined();
  });

  it('an unlock a lagging read seems to show, seconds after the service locked, is not taken as applied', async () => {
    // The service locked the account 5 s ago: a replica may still show it enabled.
    const lockedAt = new Date(START - 5_000).toISOString();
    const io = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, enabled: true },
        record: record({ enabled: false, enabledAt: lockedAt }),
      }),
      setAccountEnabled: lost(RESET),
      readAccount: () => ({ ...ADA, enabled: true }),
    });
    const outcome = await account('unlock', io);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.error?.message).toContain('could not tell whether this one was applied');
    expect(outcome.record?.enabled).toBeUndefined();
  });

  it('a delete of an account the service created seconds ago is not taken as applied by a read that finds nothing', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({
        account: ADA,
        record: record({ createdAt: new Date(START - 5_000).toISOString() }),
      }),
      deleteAccount: lost(RESET),
      readAccount: () => null,
    });
    const outcome = await account('delete', io);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.error?.message).toContain('could not tell whether this one was applied');
    expect(outcome.record?.removed).toBeUndefined();
  });

  it('a delete whose read-back cannot be made says it could not tell', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      deleteAccount: lost(RESET),
      readAccount: lost(GATEWAY),
    });
    const outcome = await account('delete', io);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.notices[0]).toContain('could not tell whether it was applied');
    expect(outcome.record?.removed).toBeUndefined();
  });

  it('an update the read-back shows is journaled; a delete it shows is too', async () => {
    const updated = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      updateAccount: lost(RESET),
      readAccount: () => ({
        ...ADA,
        profile: { accountId: ADA.accountId, displayName: 'Ada Lovelace', givenName: 'Ada' },
      }),
    });
    expect(await account('update', updated)).toMatchObject({
      ok: true,
      changes: [{ change: 'account updated' }],
    });
    const deleted = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      deleteAccount: lost(GATEWAY),
      readAccount: () => null,
    });
    const outcome = await account('delete', deleted);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account deleted' }] });
    expect(outcome.record?.removed?.targetId).toBe('u-1');
  });
});

describe('a lost update and a read that may lag the service', () => {
  /** What the update asks for (A), and what the service's own update 5 s before set (B). */
  const ASKED = { displayName: 'Ada Lovelace', givenName: 'Ada' };
  const SET_BEFORE = { ...ASKED, displayName: 'Ada King' };
  const secondsAgo = (s: number) => new Date(START - s * 1_000).toISOString();

  it('does not take values a lagging read shows, seconds after the service updated, as the lost update applied', async () => {
    // Request 1 set B 5 s ago; this one sets A back, its answer lost, and the target did not
    // apply it: a replica from before request 1 still shows A.
    const io = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, profile: ASKED },
        record: record({ profileAt: secondsAgo(5) }),
      }),
      updateAccount: lost(RESET),
      readAccount: () => ({ ...ADA, profile: ASKED }),
    });
    const outcome = await account('update', io);
    expect(io.callsOf('updateAccount')).toHaveLength(1);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.error?.message).toContain('could not tell whether this one was applied');
    expect(outcome.record?.profileAt).toBeUndefined();
    expect(outcome.verification?.visible).toBe(false);
  });

  it('takes a read made once the window after the service update has passed as showing it', async () => {
    // The service's update was 25 s ago: a read from 5 s on no longer predates it.
    const lagEnds = START + 5_000;
    const io: ScriptedIo = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, profile: SET_BEFORE },
        record: record({ profileAt: secondsAgo(25) }),
      }),
      updateAccount: lost(GATEWAY),
      readAccount: () => ({ ...ADA, profile: io.now() < lagEnds ? SET_BEFORE : ASKED }),
    });
    const outcome = await account('update', io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account updated' }] });
    expect(outcome.record?.profileAt).toBeDefined();
    expect(io.callsOf('readAccount').at(-1)!.at).toBeGreaterThanOrEqual(lagEnds);
  });

  it('takes a read showing the new values of an account the service created seconds ago as showing it', async () => {
    // Before the create there was no account: no replica shows values this update asks for.
    const io = new ScriptedIo({
      findAccount: () => ({
        account: { ...ADA, profile: SET_BEFORE },
        record: record({ createdAt: secondsAgo(5) }),
      }),
      updateAccount: lost(RESET),
      readAccount: () => ({ ...ADA, profile: ASKED }),
    });
    expect(await account('update', io)).toMatchObject({
      ok: true,
      changes: [{ change: 'account updated' }],
    });
  });
});

describe('a request accepted before revision 2 (running at the upgrade)', () => {
  // Revision 1 read nothing back after a failed write: its history holds no read there.
  const REVISION_1 = { replaysRevision1: true } as const;

  it('an account write whose answer was lost fails with its error, reading nothing back', async () => {
    for (const action of ['lock', 'update', 'delete'] as const) {
      const io = new ScriptedIo({
        findAccount: () => ({ account: ADA, record: record() }),
        setAccountEnabled: lost(RESET),
        updateAccount: lost(RESET),
        deleteAccount: lost(RESET),
        readAccount: () => null,
      });
      const outcome = await account(action, io, REVISION_1);
      expect(outcome).toMatchObject({ ok: false, changes: [], error: RESET });
      expect(io.callsOf('readAccount')).toEqual([]);
    }
  });

  it('a membership write whose answer was lost fails with its error, reading nothing back', async () => {
    const io = membershipIo({
      readMemberships: reads([], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await driveAsync(
      membershipStep({
        ...stepContext(LAGGING),
        ...REVISION_1,
        action: 'grant',
        groups: [{ name: SALES.displayName }],
      }),
      io,
    );
    expect(outcome).toMatchObject({ ok: false, changes: [], error: RESET });
    expect(outcome.record?.granted).toBeUndefined();
    // The read before the write only.
    expect(io.callsOf('readMemberships')).toHaveLength(1);
  });

  it('an update the read before shows in place is journaled, as revision 1 committed it', async () => {
    const shown = { ...ADA, profile: { displayName: 'Ada Lovelace', givenName: 'Ada' } };
    const io = new ScriptedIo({
      findAccount: () => ({ account: shown, record: record() }),
      updateAccount: () => null,
      readAccount: () => shown,
    });
    expect(await account('update', io, REVISION_1)).toMatchObject({
      ok: true,
      changes: [{ change: 'account updated' }],
    });
  });
});

describe('a lost write, then a reconciling write the target refuses', () => {
  it('journals what the read showed in place and fails with the refusal, not with a read failure', async () => {
    const refused: SerializedError = {
      code: 'TARGET_FORBIDDEN',
      message: 'entra: DELETE .../members/ada/$ref answered 403',
      retryable: false,
      status: 403,
    };
    const io = membershipIo({
      listManagedGroups: () => [SALES, OPS],
      // The read back shows the lost add in place, and Ops, which must go.
      readMemberships: reads([], ['g-sales', 'g-ops']),
      writeMemberships: (_input: unknown, call: number) => ({
        ok: false,
        error: call === 1 ? RESET : refused,
      }),
    });
    const outcome = await grant('setMemberships', [SALES], io);
    expect(io.callsOf('writeMemberships').flatMap((c) => c.input.remove ?? [])).toEqual(['g-ops']);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TARGET_FORBIDDEN' } });
    expect(outcome.changes).toEqual([
      { change: 'member added', groupId: 'g-sales', groupName: 'Sales' },
    ]);
    expect(outcome.notices.join('\n')).toContain('shows it in place: added Sales (g-sales)');
    expect(outcome.notices.join('\n')).not.toContain('reading back failed');
  });
});

describe('a lost membership write and a read that may lag the service', () => {
  it('does not take a member a lagging read shows, seconds after the service removed it, as the lost grant applied', async () => {
    const removedAt = new Date(START - 5_000).toISOString();
    const io = new ScriptedIo({
      findAccount: () => ({
        account: ADA,
        record: record({ groupWrites: { 'g-sales': { member: false, at: removedAt } } }),
      }),
      lookUpRoles: () => [SALES],
      // A replica from before the removal: the account still in Sales.
      readMemberships: reads(['g-sales'], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES], io);
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
    expect(outcome).toMatchObject({
      ok: false,
      changes: [],
      error: { code: 'TARGET_UNREACHABLE' },
    });
    expect(outcome.error?.message).toContain('could not tell whether this one was applied');
    expect(outcome.record?.granted ?? []).toEqual([]);
  });

  it('takes the same read as showing it once the window after the service write has passed', async () => {
    const removedAt = new Date(START - 40_000).toISOString();
    const io = new ScriptedIo({
      findAccount: () => ({
        account: ADA,
        record: record({ groupWrites: { 'g-sales': { member: false, at: removedAt } } }),
      }),
      lookUpRoles: () => [SALES],
      readMemberships: reads([], ['g-sales']),
      writeMemberships: lost(RESET),
    });
    const outcome = await grant('grant', [SALES], io);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [{ change: 'member added', groupId: 'g-sales', groupName: 'Sales' }],
    });
  });
});

describe('a read that does not show the account verifies no revoke', () => {
  const notFound: SerializedError = {
    code: 'ACCOUNT_NOT_FOUND',
    message: 'reads do not show the account',
    retryable: false,
  };
  const removed = () => [
    {
      groupId: 'g-sales',
      groupName: 'Sales',
      change: 'removed',
      outcome: 'already',
      maybeOurs: false,
    },
  ];

  it('re-reads until a read shows the account without the group', async () => {
    const io = membershipIo({
      readMemberships: reads(['g-sales'], notFound, notFound, []),
      writeMemberships: removed,
    });
    const outcome = await grant('revoke', [SALES], io);
    expect(outcome.ok).toBe(true);
    expect(io.callsOf('readMemberships')).toHaveLength(4);
  });

  it('fails naming the account when no read within the window shows it, after an answered revoke', async () => {
    const io = membershipIo({
      readMemberships: reads(['g-sales'], notFound),
      writeMemberships: removed,
    });
    const outcome = await grant('revoke', [SALES], io);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ACCOUNT_NOT_FOUND' } });
    expect(outcome.error?.message).toContain('no read back within 30 s shows it');
    expect(io.callsOf('readMemberships').length).toBeGreaterThan(2);
  });
});
