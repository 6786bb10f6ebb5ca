import { describe, expect, it } from 'vitest';
import { membershipStep } from '../../../src/domain/membership-step';
import { driveAsync } from '../../../src/domain/step-machine';
import type { MembershipRead, MembershipWriteAnswer } from '../../../src/domain/target-answers';
import {
  ADA,
  LAGGING,
  linkedRecord as record,
  SALES,
  ScriptedIo,
  stepContext,
  type OpInput,
} from './scripted-io';

/*
 * A step's read before may vouch for its connector's "not a member" (`absenceVouched`: SCIM's
 * members filter had shown a member in the worker that read). The reads back of the same step
 * are told so (`absenceVouchedBefore`), since they may run in a worker started since, which
 * has not seen that evidence. A read before that did not vouch leaves their inputs as they
 * were: histories recorded before replay the same actions.
 */

type ReadInput = OpInput & { absenceVouchedBefore?: true };
type WriteInput = OpInput & { readBack?: Record<string, unknown> };

const before = (vouched: boolean): MembershipRead => ({
  groupIds: ['g-sales'],
  names: {},
  notices: [],
  ...(vouched ? { absenceVouched: true as const } : {}),
});

/** A revoke of Sales whose folded read back cannot tell, then whose re-read shows it gone. */
function revoke(vouched: boolean, foldsReadBack = true) {
  const io = new ScriptedIo({
    findAccount: () => ({ account: ADA, record: record() }),
    lookUpRoles: () => [SALES],
    readMemberships: (_input, call) =>
      call === 1 ? before(vouched) : { groupIds: [], names: {}, notices: [] },
    writeMemberships: (input: WriteInput) => {
      const answers: MembershipWriteAnswer[] = (input.remove ?? []).map((groupId) => ({
        groupId,
        groupName: groupId,
        change: 'removed',
        outcome: 'acknowledged',
        maybeOurs: false,
      }));
      const untold: MembershipRead = {
        groupIds: [],
        names: {},
        notices: [],
        unproven: ['g-sales'],
      };
      return input.readBack === undefined
        ? answers
        : { answers, readBack: { ok: true, value: untold } };
    },
  });
  const outcome = driveAsync(
    membershipStep({
      ...stepContext(LAGGING),
      ...(foldsReadBack ? { foldsReadBack: true } : {}),
      action: 'revoke',
      groups: [{ name: 'Sales' }],
    }),
    io,
  );
  return { io, outcome };
}

const reads = (io: ScriptedIo) => io.callsOf('readMemberships').map((c) => c.input as ReadInput);
const writes = (io: ScriptedIo) => io.callsOf('writeMemberships').map((c) => c.input as WriteInput);

describe('a step\'s read before that vouched for the connector\'s "not a member"', () => {
  it('tells the write’s read back and every re-read after it', async () => {
    const { io, outcome } = revoke(true);
    expect((await outcome).ok).toBe(true);
    expect(writes(io).map((input) => input.readBack)).toEqual([
      { groupIds: ['g-sales'], confirmAbsent: ['g-sales'], absenceVouchedBefore: true },
    ]);
    const [first, ...after] = reads(io);
    // The read before itself was told nothing: no earlier read of the step.
    expect(first).not.toHaveProperty('absenceVouchedBefore');
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((input) => input.absenceVouchedBefore)).toEqual(after.map(() => true));
  });

  it('tells the read back in an operation of its own (a request before revision 3)', async () => {
    const { io, outcome } = revoke(true, false);
    expect((await outcome).ok).toBe(true);
    expect(reads(io)[1]).toMatchObject({
      confirmAbsent: ['g-sales'],
      absenceVouchedBefore: true,
    });
  });

  it('leaves the inputs as they were where the read before did not vouch', async () => {
    const { io, outcome } = revoke(false);
    expect((await outcome).ok).toBe(true);
    expect(writes(io).map((input) => input.readBack)).toEqual([
      { groupIds: ['g-sales'], confirmAbsent: ['g-sales'] },
    ]);
    expect(reads(io).some((input) => 'absenceVouchedBefore' in input)).toBe(false);
  });
});
