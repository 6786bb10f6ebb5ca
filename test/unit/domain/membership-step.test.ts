import { describe, expect, it } from 'vitest';
import type { GroupRef } from '../../../src/domain/group';
import { membershipStep } from '../../../src/domain/membership-step';
import type { MembershipAction } from '../../../src/domain/membership-plan';
import { driveAsync } from '../../../src/domain/step-machine';
import type { MembershipWriteAnswer } from '../../../src/domain/target-answers';
import {
  CONSISTENT,
  failure,
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

const LEGAL: GroupRef = { id: 'g-legal', displayName: 'Legal', writable: true };
const DYNAMIC: GroupRef = {
  id: 'g-all',
  displayName: 'All Staff',
  writable: false,
  notWritableReason: 'dynamic membership: members follow a rule',
};
const CATALOGUE = [SALES, OPS, LEGAL, DYNAMIC];

/** Answers every write with `outcome`, as Graph's write answers would. */
function answers(
  outcome:
    | MembershipWriteAnswer['outcome']
    | ((id: string, change: string) => MembershipWriteAnswer['outcome']),
  maybeOurs = false,
) {
  return (input: OpInput): MembershipWriteAnswer[] => [
    ...(input.remove ?? []).map((groupId) => ({
      groupId,
      groupName: groupId,
      change: 'removed' as const,
      outcome: typeof outcome === 'function' ? outcome(groupId, 'removed') : outcome,
      maybeOurs,
    })),
    ...(input.add ?? []).map((groupId) => ({
      groupId,
      groupName: groupId,
      change: 'added' as const,
      outcome: typeof outcome === 'function' ? outcome(groupId, 'added') : outcome,
      maybeOurs,
    })),
  ];
}

function reads(...sequence: string[][]) {
  return (_input: unknown, call: number) => ({
    groupIds: sequence[Math.min(call, sequence.length) - 1] ?? [],
    names: {},
    notices: [],
  });
}

function run(action: MembershipAction, groups: GroupRef[], io: ScriptedIo, capabilities = LAGGING) {
  return driveAsync(
    membershipStep({
      ...stepContext(capabilities),
      action,
      groups: groups.map((group) => ({ name: group.displayName })),
    }),
    io,
  );
}

const catalogue = (input: OpInput) =>
  (input.selectors ?? []).map(
    (s) => CATALOGUE.find((g) => 'name' in s && g.displayName === s.name) ?? null,
  );

describe('membership step: a read never cancels a write (DESIGN invariant 9)', () => {
  it('revokes a group a lagging read says the account is not in, and journals what the write answered', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      // The grant made seconds ago does not show yet; the re-reads show the revoke.
      readMemberships: reads([], []),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('revoke', [SALES], io);
    expect(io.callsOf('writeMemberships')[0]!.input.remove).toEqual(['g-sales']);
    expect(outcome).toMatchObject({
      ok: true,
      changes: [{ change: 'member removed', groupId: 'g-sales', groupName: 'Sales' }],
    });
  });

  it('grants a group the write says is there already: no change, a notice', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads([], ['g-sales']),
      writeMemberships: answers('already'),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes).toEqual([]);
    expect(outcome.notices).toContain('already as requested, nothing changed: Sales (g-sales)');
  });

  it('journals an "already there" as its own change when an earlier attempt may have written it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads([], ['g-sales']),
      writeMemberships: answers('already', true),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome.changes).toEqual([
      { change: 'member added', groupId: 'g-sales', groupName: 'Sales' },
    ]);
  });

  it('verifies only the named groups: other groups are never "unexpected"', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads(['g-legal'], ['g-legal', 'g-sales']),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome.ok).toBe(true);
  });

  it('fails after 30 s naming the missing group, with the write journaled', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads(['g-legal']),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('grant', [SALES, OPS], io);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(outcome.error?.details).toEqual({
      missing: [
        { id: 'g-sales', name: 'Sales' },
        { id: 'g-ops', name: 'Ops' },
      ],
      unexpected: [],
    });
    expect(outcome.changes).toHaveLength(2);
    expect(io.callsOf('readMemberships').map((c) => (c.at - START) / 1000)).toEqual([
      0, 0, 1, 3, 7, 12, 17, 22, 27, 30,
    ]);
  });

  it('refuses a named group whose members may not be written, before any write', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
    });
    const outcome = await run('grant', [SALES, DYNAMIC], io);
    expect(outcome.error?.code).toBe('GROUP_NOT_WRITABLE');
    expect(outcome.error?.message).toContain('All Staff (g-all): dynamic membership');
    expect(io.callsOf('writeMemberships')).toEqual([]);
  });

  it('sends a grant again while the target does not know an account created moments ago', async () => {
    const created = record({ createdAt: new Date(START - 1_000).toISOString() });
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: created }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) =>
        call === 1
          ? failure('ACCOUNT_NOT_FOUND')
          : { groupIds: ['g-sales'], names: {}, notices: [] },
      writeMemberships: (input, call) => answers(call === 1 ? 'accountNotFound' : 'applied')(input),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'member added' }] });
    expect(io.callsOf('writeMemberships').map((c) => (c.at - START) / 1000)).toEqual([0, 1]);
    expect(outcome.notices[0]).toContain('reads do not show account');
  });
});

describe('membership step: a history recorded before every write was read back', () => {
  it('reads back no group whose recorded answer confirmed it, as that version did', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads([]),
      writeMemberships: (input: OpInput) =>
        answers('acknowledged')(input).map((answer) => ({ ...answer, confirmedByWrite: true })),
    });
    const outcome = await run('grant', [SALES], io, CONSISTENT);
    // The read before the write only: the replay schedules the reads its history holds.
    expect(io.callsOf('readMemberships')).toHaveLength(1);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'member added' }] });
  });
});

describe('membership step: lag is judged by when a write was sent', () => {
  it('sends a grant again when its 404 came late (the call waited out a storm) but it was sent within the window', async () => {
    const created = record({ createdAt: new Date(START - 1_000).toISOString() });
    const io: ScriptedIo = new ScriptedIo({
      findAccount: () => ({ account: null, record: created }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) =>
        call === 1
          ? failure('ACCOUNT_NOT_FOUND')
          : { groupIds: ['g-sales'], names: {}, notices: [] },
      writeMemberships: (input, call) => {
        if (call === 1) io.advance(40_000);
        return answers(call === 1 ? 'accountNotFound' : 'applied')(input);
      },
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'member added' }] });
  });

  it('fails naming the account once a write sent after the window still finds no account', async () => {
    const created = record({ createdAt: new Date(START - 1_000).toISOString() });
    const io = new ScriptedIo({
      findAccount: () => ({ account: null, record: created }),
      lookUpRoles: catalogue,
      readMemberships: () => failure('ACCOUNT_NOT_FOUND'),
      writeMemberships: answers('accountNotFound'),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome.error?.code).toBe('ACCOUNT_NOT_FOUND');
    const sent = io.callsOf('writeMemberships').map((c) => (c.at - START) / 1000);
    expect(sent.at(-1)).toBeGreaterThanOrEqual(29);
  });
});

describe('membership step: setMemberships reconciles the writable managed groups only', () => {
  const managed = () => CATALOGUE;

  it('refuses to reconcile against an empty catalogue, before any target call', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record({ assignedGroups: ['g-legal'] }) }),
      listManagedGroups: () => [],
    });
    const outcome = await run('setMemberships', [SALES], io);
    expect(outcome).toMatchObject({ ok: false, changes: [], error: { code: 'CATALOGUE_EMPTY' } });
    expect(outcome.error?.message).toContain(
      'the role catalogue of connector "entra" is empty: import it first (POST /api/connectors/entra/imports)',
    );
    expect(io.calls.map((call) => call.op)).toEqual(['findAccount', 'listManagedGroups']);
  });

  it('leaves a dynamic group the account is in alone, with a notice naming it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      listManagedGroups: managed,
      readMemberships: reads(['g-all', 'g-ops'], ['g-all', 'g-sales']),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('setMemberships', [SALES], io);
    expect(outcome.ok).toBe(true);
    const write = io.callsOf('writeMemberships');
    expect(write.flatMap((c) => c.input.remove ?? [])).toEqual(['g-ops']);
    expect(write.flatMap((c) => c.input.add ?? [])).toEqual(['g-sales']);
    expect(outcome.notices[0]).toContain('left alone');
    expect(outcome.notices[0]).toContain('All Staff (g-all)');
  });

  it('removes a group the service granted although a lagging read does not show it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record({ assignedGroups: ['g-legal'] }) }),
      lookUpRoles: catalogue,
      listManagedGroups: managed,
      readMemberships: reads([], ['g-sales']),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('setMemberships', [SALES], io);
    expect(io.callsOf('writeMemberships').flatMap((c) => c.input.remove ?? [])).toEqual([
      'g-legal',
    ]);
    expect(outcome.changes.map((c) => `${c.change} ${c.groupId}`)).toEqual([
      'member removed g-legal',
      'member added g-sales',
    ]);
  });

  it('removes again a group that must go when a re-read shows it (reconciled, not only re-read)', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      listManagedGroups: managed,
      // The read before missed Ops (granted by someone seconds ago); a re-read shows it.
      readMemberships: reads([], ['g-sales', 'g-ops'], ['g-sales']),
      writeMemberships: answers('applied'),
    });
    const outcome = await run('setMemberships', [SALES], io);
    expect(outcome.ok).toBe(true);
    const removed = io.callsOf('writeMemberships').flatMap((c) => c.input.remove ?? []);
    expect(removed).toEqual(['g-ops']);
    expect(outcome.changes.map((c) => `${c.change} ${c.groupId}`)).toContain(
      'member removed g-ops',
    );
    expect(outcome.record).toEqual({
      granted: ['g-sales'],
      revoked: ['g-ops', 'g-legal'],
      groupsAt: '2026-11-23T08:00:01.000Z',
    });
  });
});

describe("membership step: the service's own recent write outweighs a lagging read", () => {
  it('does not journal a removal whose first attempt failed and whose retry found it already gone', async () => {
    // A 503 (not applied) then "not a member": the account was never in the group.
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: reads([], []),
      writeMemberships: answers('already', true),
    });
    const outcome = await run('revoke', [SALES], io);
    expect(outcome).toMatchObject({ ok: true, changes: [] });
  });

  it('journals the revoke of a group it granted seconds ago, lost answer and all, though a read does not show the grant', async () => {
    const granted = record({
      assignedGroups: ['g-sales'],
      groupWrites: { 'g-sales': { member: true, at: new Date(START - 3_000).toISOString() } },
    });
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: granted }),
      lookUpRoles: catalogue,
      readMemberships: reads([], []),
      writeMemberships: answers('already', true),
    });
    const outcome = await run('revoke', [SALES], io);
    expect(outcome.changes).toEqual([
      { change: 'member removed', groupId: 'g-sales', groupName: 'Sales' },
    ]);
  });
});

describe('membership step: targets whose answers do not tell (SCIM)', () => {
  it('takes the read before as the judge of an acknowledged write', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (input, call) => ({
        groupIds:
          call === 1
            ? (input.groupIds ?? []).filter((id) => id === 'g-ops')
            : (input.groupIds ?? []),
        names: {},
        notices: [],
      }),
      writeMemberships: answers('acknowledged'),
    });
    const outcome = await run('grant', [SALES, OPS], io, CONSISTENT);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes.map((c) => c.groupId)).toEqual(['g-sales']);
    // One PATCH per group (batch size 1); one read of both groups before, one after.
    expect(io.callsOf('writeMemberships')).toHaveLength(2);
    expect(io.callsOf('readMemberships')).toHaveLength(2);
  });

  it('fails at once when the one read-back differs (reads show writes at once)', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: () => ({ groupIds: [], names: {}, notices: [] }),
      writeMemberships: answers('acknowledged'),
    });
    const outcome = await run('grant', [SALES], io, CONSISTENT);
    expect(outcome.error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(io.callsOf('readMemberships')).toHaveLength(2);
    // Only acknowledged, and the read back says otherwise: no change claimed, none recorded.
    expect(outcome.changes).toEqual([]);
    expect(outcome.record?.granted).toBeUndefined();
  });

  it('asks the connector to confirm "not a member" where it decides: groups left before, every group after', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (input, call) => ({
        groupIds: call === 1 ? ['g-ops'] : (input.groupIds ?? []).filter((id) => id === 'g-sales'),
        names: {},
        notices: [],
      }),
      writeMemberships: answers('acknowledged'),
    });
    const outcome = await run('grant', [SALES], io, CONSISTENT);
    expect(outcome.ok).toBe(true);
    const revoke = await run('revoke', [OPS], io, CONSISTENT);
    expect(revoke.ok).toBe(true);
    expect(io.callsOf('readMemberships').map((call) => call.input.confirmAbsent ?? [])).toEqual([
      [],
      ['g-sales'],
      ['g-ops'],
      ['g-ops'],
    ]);
  });
});

describe("membership step: an earlier request's lost revoke", () => {
  it('asks the read before to vouch for "not a member" of its group, and journals nothing where it cannot', async () => {
    // An earlier request revoked Ops; its answer was lost. This step grants Ops.
    const lostRevoke = {
      change: 'member removed' as const,
      groupId: 'g-ops',
      groupName: 'Ops',
      requestId: 'r0',
      step: 0,
      at: new Date(START - 10 * 60_000).toISOString(),
      notInPlaceBefore: true,
    };
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record({ lostWrites: [lostRevoke] }) }),
      lookUpRoles: catalogue,
      // The read shows no Ops membership, and cannot vouch for it (a filter that may be blind).
      readMemberships: (input) => ({
        groupIds: [],
        names: {},
        notices: [],
        ...(input.confirmAbsent?.includes('g-ops') === true ? { unproven: ['g-ops'] } : {}),
      }),
      writeMemberships: answers('acknowledged'),
    });
    const outcome = await run('grant', [OPS], io, CONSISTENT);
    expect(io.callsOf('readMemberships')[0]?.input.confirmAbsent).toEqual(['g-ops']);
    expect(outcome).not.toHaveProperty('foundLater');
  });
});

describe('membership step: an account this request created', () => {
  /** The step right after a create of this request: the account known from the create's answer. */
  function runAfterCreate(groups: GroupRef[], io: ScriptedIo, capabilities = LAGGING) {
    const context = stepContext(capabilities);
    context.handle.account = ADA;
    context.handle.seen = true;
    context.handle.createdHere = true;
    context.handle.record = record({ createdAt: new Date(START).toISOString() });
    return driveAsync(
      membershipStep({
        ...context,
        action: 'grant',
        groups: groups.map((group) => ({ name: group.displayName })),
      }),
      io,
    );
  }

  it('is not read before the writes where the write answers tell: only the read-back', async () => {
    const io = new ScriptedIo({
      lookUpRoles: catalogue,
      readMemberships: reads(['g-sales', 'g-ops']),
      writeMemberships: answers('applied'),
    });
    const outcome = await runAfterCreate([SALES, OPS], io);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes.map((c) => c.groupId)).toEqual(['g-sales', 'g-ops']);
    // One $batch, then one read, after the writes.
    expect(io.callsOf('writeMemberships')).toHaveLength(1);
    expect(io.callsOf('readMemberships')).toHaveLength(1);
    expect(io.calls.map((call) => call.op)).toEqual([
      'lookUpRoles',
      'writeMemberships',
      'readMemberships',
    ]);
  });

  it('is read before the writes where a write is acknowledged alike either way (SCIM)', async () => {
    // The target put the new account in Ops by itself (a default group): the read tells.
    const io = new ScriptedIo({
      lookUpRoles: catalogue,
      readMemberships: reads(['g-ops'], ['g-sales', 'g-ops']),
      writeMemberships: answers('acknowledged'),
    });
    const outcome = await runAfterCreate([SALES, OPS], io, CONSISTENT);
    expect(outcome.ok).toBe(true);
    expect(outcome.changes.map((c) => c.groupId)).toEqual(['g-sales']);
    expect(io.callsOf('readMemberships')).toHaveLength(2);
  });
});
