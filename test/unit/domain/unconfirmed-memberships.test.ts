import { describe, expect, it } from 'vitest';
import { applyRecordUpdate, type AccountRecord } from '../../../src/domain/account-record';
import { evaluateDrift } from '../../../src/domain/drift-evaluation';
import type { SerializedError } from '../../../src/domain/errors';
import type { GroupRef } from '../../../src/domain/group';
import type { MembershipAction } from '../../../src/domain/membership-plan';
import { membershipStep } from '../../../src/domain/membership-step';
import { driveAsync, type IoResult } from '../../../src/domain/step-machine';
import {
  CONSISTENT,
  LAGGING,
  ScriptedIo,
  stepContext,
  type OpInput,
  ADA,
  linkedRecord,
  SALES,
} from './scripted-io';

/**
 * A grant or revoke whose answer was lost and that no read confirmed or refuted leaves the
 * group's membership not known in the service's record: neither assigned (a reconciliation
 * would call a revoke that was applied "removed outside", and a restore would grant it
 * again) nor not assigned.
 */

const RESET: SerializedError = {
  code: 'TARGET_UNREACHABLE',
  message: 'entra: POST /groups/g-sales/members/$ref failed (UND_ERR_SOCKET)',
  retryable: true,
  details: { maybeApplied: true },
};
const GATEWAY: SerializedError = {
  code: 'TARGET_UNAVAILABLE',
  message: 'entra: GET /users/u-ada/memberOf answered 504',
  retryable: true,
  status: 504,
};

function reads(...sequence: (string[] | SerializedError)[]) {
  return (_input: unknown, call: number) => {
    const answer = sequence[Math.min(call, sequence.length) - 1]!;
    return Array.isArray(answer)
      ? { groupIds: answer, names: {}, notices: [] }
      : { ok: false, error: answer };
  };
}

function step(
  action: MembershipAction,
  io: ScriptedIo,
  capabilities = LAGGING,
  groups: GroupRef[] = [SALES],
) {
  return driveAsync(
    membershipStep({
      ...stepContext(capabilities),
      recordsUnconfirmed: true,
      action,
      groups: groups.map((group) => ({ name: group.displayName })),
    }),
    io,
  );
}

function io(record: AccountRecord, answers: ConstructorParameters<typeof ScriptedIo>[0]) {
  return new ScriptedIo({
    findAccount: () => ({ account: ADA, record }),
    lookUpRoles: (input: OpInput) =>
      (input.selectors ?? []).map((s) =>
        'name' in s && s.name === SALES.displayName ? SALES : null,
      ),
    writeMemberships: (): IoResult<never> => ({ ok: false, error: RESET }),
    ...answers,
  });
}

describe('a grant or revoke whose answer was lost', () => {
  it('marks the group not known when the read-back cannot be made', async () => {
    const outcome = await step(
      'grant',
      io(linkedRecord(), { readMemberships: reads([], GATEWAY) }),
    );
    expect(outcome.changes).toEqual([]);
    expect(outcome.record?.unconfirmedGroups).toEqual([SALES.id]);
    expect(outcome.record?.granted).toBeUndefined();
  });

  it('marks the group not known when no read within the window shows it on a lagging target', async () => {
    const assigned = linkedRecord({ assignedGroups: [SALES.id] });
    const outcome = await step('revoke', io(assigned, { readMemberships: reads([SALES.id]) }));
    expect(outcome.ok).toBe(false);
    expect(outcome.record?.unconfirmedGroups).toEqual([SALES.id]);
    // The record no longer says the service assigned it.
    const after = applyRecordUpdate(assigned, 'entra', ADA.accountId, outcome.record!);
    expect(after?.assignedGroups).toEqual([]);
    expect(after?.unconfirmedGroups).toEqual([SALES.id]);
  });

  it('marks nothing where reads show writes at once: the read-back showed it not applied', async () => {
    const outcome = await step(
      'grant',
      io(linkedRecord(), { readMemberships: reads([]) }),
      CONSISTENT,
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.record?.unconfirmedGroups).toBeUndefined();
  });

  it('is settled by a later grant the target answers', async () => {
    const unknown = linkedRecord({ unconfirmedGroups: [SALES.id] });
    const outcome = await step(
      'grant',
      io(unknown, {
        readMemberships: reads([], [SALES.id]),
        writeMemberships: () => [
          {
            groupId: SALES.id,
            groupName: SALES.displayName,
            change: 'added',
            outcome: 'applied',
            maybeOurs: false,
          },
        ],
      }),
    );
    expect(outcome.ok).toBe(true);
    const after = applyRecordUpdate(unknown, 'entra', ADA.accountId, outcome.record!);
    expect(after?.assignedGroups).toEqual([SALES.id]);
    expect(after?.unconfirmedGroups).toBeUndefined();
  });
});

describe('a reconciliation, for a group whose membership the record does not know', () => {
  it('reports no member added outside: the service may have added it', () => {
    const record = linkedRecord({ targetId: 'u1', unconfirmedGroups: ['g1'] });
    const { candidates } = evaluateDrift(
      {
        members: new Map([['g1', new Map([['u1', { kind: 'user' as const }]])]]),
        unreadGroups: new Map(),
        accounts: new Map([['u1', { id: 'u1', key: 'u1', name: ADA.accountId, enabled: true }]]),
        accountsComplete: true,
        sources: { members: 'groups/delta', accounts: 'users/delta' },
      },
      {
        records: [record],
        groups: [{ id: 'g1', displayName: 'Sales', writable: true }],
        memberKeys: (r) => [r.targetId],
        skip: new Set(),
      },
    );
    expect(candidates).toEqual([]);
  });
});
