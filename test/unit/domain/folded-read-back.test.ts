import { describe, expect, it } from 'vitest';
import { membershipStep } from '../../../src/domain/membership-step';
import type { MembershipAction } from '../../../src/domain/membership-plan';
import { driveAsync, type IoResult } from '../../../src/domain/step-machine';
import type { MembershipRead, MembershipWriteAnswer } from '../../../src/domain/target-answers';
import type { GroupRef } from '../../../src/domain/group';
import type { ConnectorCapabilities } from '../../../src/domain/capabilities';
import {
  ADA,
  CONSISTENT,
  failure,
  LAGGING,
  linkedRecord as record,
  OPS,
  SALES,
  ScriptedIo,
  START,
  stepContext,
  type OpInput,
} from './scripted-io';

/*
 * Revision 3 (`foldsReadBack`): where the membership procedure reads back at once after its
 * last write, the write operation makes that first read once answered, and the step takes it
 * as its first verification read (DESIGN invariant 9: it verifies, the write's answers decide
 * what was effective). Later re-reads, and a read again where the folded one failed, are
 * operations of their own.
 */

const CATALOGUE = [SALES, OPS];
const catalogue = (input: OpInput) =>
  (input.selectors ?? []).map(
    (s) => CATALOGUE.find((g) => 'name' in s && g.displayName === s.name) ?? null,
  );

type Folded = OpInput & { readBack?: { groupIds: string[]; confirmAbsent?: string[] } };

/** Write answers `applied` for every change, with the read-back `read` when one was asked. */
function writes(read: (call: number) => IoResult<MembershipRead>) {
  return (input: Folded, call: number) => {
    const answers: MembershipWriteAnswer[] = [
      ...(input.remove ?? []).map((groupId) => answer(groupId, 'removed')),
      ...(input.add ?? []).map((groupId) => answer(groupId, 'added')),
    ];
    return input.readBack === undefined ? answers : { answers, readBack: read(call) };
  };
}

function answer(groupId: string, change: 'added' | 'removed'): MembershipWriteAnswer {
  return { groupId, groupName: groupId, change, outcome: 'applied', maybeOurs: false };
}

const shows = (...groupIds: string[]): IoResult<MembershipRead> => ({
  ok: true,
  value: { groupIds, names: {}, notices: [] },
});

function run(
  action: MembershipAction,
  groups: GroupRef[],
  io: ScriptedIo,
  capabilities: ConnectorCapabilities = LAGGING,
  foldsReadBack = true,
) {
  return driveAsync(
    membershipStep({
      ...stepContext(capabilities),
      ...(foldsReadBack ? { foldsReadBack: true } : {}),
      action,
      groups: groups.map((group) => ({ name: group.displayName })),
    }),
    io,
  );
}

const readsBefore = (groupIds: string[]) => () => ({ groupIds, names: {}, notices: [] });
const writeInputs = (io: ScriptedIo) =>
  io.callsOf('writeMemberships').map((c) => c.input as Folded);

describe('membership step, revision 3: the first read-back comes with the write', () => {
  it('verifies a grant by the read its write made, with no read operation after it', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: readsBefore([]),
      writeMemberships: writes(() => shows('g-sales', 'g-ops')),
    });
    const outcome = await run('grant', [SALES, OPS], io);
    expect(outcome).toMatchObject({ ok: true, verification: { reads: 1, visible: true } });
    expect(outcome.changes.map((c) => c.groupId)).toEqual(['g-sales', 'g-ops']);
    // The read before only; the write asked to read back both groups, each a verdict.
    expect(io.callsOf('readMemberships')).toHaveLength(1);
    expect(writeInputs(io).map((input) => input.readBack)).toEqual([
      { groupIds: ['g-sales', 'g-ops'], confirmAbsent: ['g-sales', 'g-ops'] },
    ]);
  });

  it('reads again in an operation of its own when the folded read failed, the write not sent again', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) =>
        call === 1 ? readsBefore([])() : { groupIds: ['g-sales'], names: {}, notices: [] },
      writeMemberships: writes(() =>
        failure('TARGET_UNAVAILABLE', 'read-back failed: the target answered 503'),
      ),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'member added' }] });
    expect(writeInputs(io)).toHaveLength(1);
    const reads = io.callsOf('readMemberships');
    expect(reads.map((c) => [c.input.groupIds, (c.at - START) / 1000])).toEqual([
      [['g-sales'], 0],
      [['g-sales'], 0],
    ]);
    expect(reads[1]!.input.confirmAbsent).toEqual(['g-sales']);
  });

  it('counts the folded read as the first of the re-reads while a lagging replica hides the grant', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) => ({
        groupIds: call < 3 ? [] : ['g-sales'],
        names: {},
        notices: [],
      }),
      writeMemberships: writes(() => shows()),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome).toMatchObject({ ok: true, verification: { reads: 3, visible: true } });
    expect(outcome.notices).toContain('verified after 3 reads');
    // Before the write; then the re-reads on the timer after the folded one showed nothing.
    expect(io.callsOf('readMemberships').map((c) => (c.at - START) / 1000)).toEqual([0, 1, 3]);
  });

  it('fails naming the missing group when no read within 30 s shows it, the folded one first', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: readsBefore([]),
      writeMemberships: writes(() => shows()),
    });
    const outcome = await run('grant', [SALES], io);
    expect(outcome.error?.code).toBe('MEMBERSHIP_MISMATCH');
    expect(outcome.changes).toHaveLength(1);
    expect(writeInputs(io)).toHaveLength(1);
    expect(io.callsOf('readMemberships').map((c) => (c.at - START) / 1000)).toEqual([
      0, 1, 3, 7, 12, 17, 22, 27, 30,
    ]);
    expect(outcome.verification).toMatchObject({ reads: 9, visible: false });
  });

  it('reads back in an operation of its own where the writes of a phase run side by side', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) =>
        call === 1 ? readsBefore([])() : { groupIds: ['g-sales', 'g-ops'], names: {}, notices: [] },
      writeMemberships: writes(() => shows('g-sales', 'g-ops')),
    });
    // One group per write call: a read beside the other call's write would not show it.
    const outcome = await run('grant', [SALES, OPS], io, CONSISTENT);
    expect(outcome.ok).toBe(true);
    expect(writeInputs(io).map((input) => input.readBack)).toEqual([undefined, undefined]);
    expect(io.callsOf('readMemberships')).toHaveLength(2);
  });

  it('folds the read-back into the last phase only: the adds after the removals', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      listManagedGroups: () => CATALOGUE,
      readMemberships: readsBefore(['g-ops']),
      writeMemberships: writes(() => shows('g-sales')),
    });
    const outcome = await run('setMemberships', [SALES], io);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(
      writeInputs(io).map((input) => [input.remove, input.add, input.readBack?.groupIds]),
    ).toEqual([
      [['g-ops'], [], undefined],
      [[], ['g-sales'], ['g-sales', 'g-ops']],
    ]);
    expect(io.callsOf('readMemberships')).toHaveLength(1);
  });

  it('takes the read-back as an operation of its own in a request accepted before revision 3', async () => {
    const io = new ScriptedIo({
      findAccount: () => ({ account: ADA, record: record() }),
      lookUpRoles: catalogue,
      readMemberships: (_input, call) => ({
        groupIds: call === 1 ? [] : ['g-sales'],
        names: {},
        notices: [],
      }),
      writeMemberships: writes(() => shows('g-sales')),
    });
    const outcome = await run('grant', [SALES], io, LAGGING, false);
    expect(outcome.ok).toBe(true);
    expect(writeInputs(io).map((input) => input.readBack)).toEqual([undefined]);
    expect(io.callsOf('readMemberships')).toHaveLength(2);
  });
});
