import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
import { evaluateDrift, type DriftScope } from '../../../src/domain/drift-evaluation';
import type { TargetView, ViewMember } from '../../../src/domain/target-view';

const at = '2026-11-23T08:00:00.000Z';

function record(
  accountId: string,
  targetId: string,
  assigned: string[],
  enabled?: boolean,
): AccountRecord {
  return {
    connector: 'graph',
    accountId,
    targetId,
    linkedAt: at,
    assignedGroups: assigned,
    ...(enabled === undefined ? {} : { enabled, enabledAt: at }),
  };
}

const user = (name?: string): ViewMember => ({
  kind: 'user',
  ...(name === undefined ? {} : { name }),
});

function view(
  members: Record<string, Record<string, ViewMember>>,
  accounts: [string, string, boolean][],
  complete = true,
): TargetView {
  return {
    members: new Map(Object.entries(members).map(([g, m]) => [g, new Map(Object.entries(m))])),
    unreadGroups: new Map(),
    accounts: new Map(accounts.map(([id, name, enabled]) => [id, { id, key: id, name, enabled }])),
    accountsComplete: complete,
    sources: { members: 'groups/delta', accounts: 'users/delta' },
  };
}

const groups = [
  { id: 'g1', displayName: 'Sales', writable: true },
  { id: 'g2', displayName: 'Finance', writable: true },
];

function scope(records: AccountRecord[], skip: string[] = []): DriftScope {
  return { records, groups, memberKeys: (r) => [r.targetId], skip: new Set(skip) };
}

describe('evaluateDrift', () => {
  it('finds each of the five kinds of drift, and nothing where the target is as assigned', () => {
    const records = [
      record('ada', 'u1', ['g1'], true),
      record('bob', 'u2', ['g1', 'g2'], true),
      record('cy', 'u3', [], true),
      record('dee', 'u4', ['g2'], false),
    ];
    const target = view(
      { g1: { u1: user(), u3: user(), u9: user(), gx: { kind: 'group' } }, g2: { u2: user() } },
      [
        ['u1', 'ada', true],
        ['u2', 'bob', true],
        ['u3', 'cy', false],
        ['u9', 'orphan@contoso.example', true],
      ],
    );
    const { candidates } = evaluateDrift(target, scope(records));
    expect(candidates).toEqual(
      expect.arrayContaining([
        {
          type: 'memberRemovedOutside',
          accountId: 'bob',
          targetId: 'u2',
          groupId: 'g1',
          groupName: 'Sales',
        },
        {
          type: 'memberAddedOutside',
          accountId: 'cy',
          targetId: 'u3',
          groupId: 'g1',
          groupName: 'Sales',
        },
        { type: 'accountDeletedOutside', accountId: 'dee', targetId: 'u4' },
        {
          type: 'accountStateChangedOutside',
          accountId: 'cy',
          targetId: 'u3',
          expectedEnabled: true,
          observedEnabled: false,
        },
        {
          type: 'unlinkedMember',
          targetId: 'u9',
          groupId: 'g1',
          groupName: 'Sales',
          memberName: 'orphan@contoso.example',
        },
      ]),
    );
    // ada is as assigned; a nested group is no orphan account; dee's memberships go with her.
    expect(candidates).toHaveLength(5);
  });

  it('concludes nothing from what it did not read: unread groups, accounts read in part', () => {
    const records = [record('ada', 'u1', ['g1', 'g2'], true)];
    const target = view({ g2: {} }, [], false);
    const { candidates, closure } = evaluateDrift(target, scope(records));
    expect(candidates).toEqual([
      {
        type: 'memberRemovedOutside',
        accountId: 'ada',
        targetId: 'u1',
        groupId: 'g2',
        groupName: 'Finance',
      },
    ]);
    expect(
      closure({ type: 'accountDeletedOutside', accountId: 'ada', targetId: 'u1' }),
    ).toBeUndefined();
    expect(
      closure({ type: 'memberAddedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g1' }),
    ).toBeUndefined();
  });

  it('judges no account a request is running for or just ended for, nor a member named like one', () => {
    const records = [record('ada', 'u1', ['g1'], true)];
    const target = view({ g1: { u9: user('new.hire') } }, [['u9', 'New.Hire', true]]);
    const { candidates, closure } = evaluateDrift(target, scope(records, ['ada', 'new.hire']));
    expect(candidates).toEqual([]);
    expect(
      closure({ type: 'memberRemovedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g1' }),
    ).toBeUndefined();
  });

  it("closes a finding the service's record no longer knows enough to judge, saying so", () => {
    // A lock whose answer was lost, never confirmed; a revoke of g2 likewise.
    const ada: AccountRecord = {
      ...record('ada', 'u1', ['g1']),
      enabledAt: at,
      enabledUnconfirmed: false,
      unconfirmedGroups: ['g2'],
    };
    const target = view({ g1: { u1: user() }, g2: {} }, [['u1', 'ada', true]]);
    const { closure } = evaluateDrift(target, scope([ada]));
    const state = closure({ type: 'accountStateChangedOutside', accountId: 'ada', targetId: 'u1' });
    expect(state).toEqual({
      because: `the service's record no longer knows the state it set: the lock of ${at}, whose answer was lost, was neither confirmed nor refuted`,
      outOfScope: true,
    });
    const removed = closure({
      type: 'memberRemovedOutside',
      accountId: 'ada',
      targetId: 'u1',
      groupId: 'g2',
    });
    expect(removed).toEqual({
      because: expect.stringMatching(
        /^the service's record no longer knows whether the account is a member: a grant or revoke/,
      ),
      outOfScope: false,
    });
    for (const found of [state, removed]) {
      expect(found?.because).not.toMatch(/set last|revoked the membership since/);
    }
  });

  it('closes what no longer holds, saying why and whether a read must confirm it', () => {
    const records = [record('ada', 'u1', ['g1'], true)];
    const target = view({ g1: { u1: user() }, g2: {} }, [['u1', 'ada', true]]);
    const evaluation = evaluateDrift(target, scope(records));
    const { candidates } = evaluation;
    const closure = (subject: Parameters<typeof evaluation.closure>[0]) =>
      evaluation.closure(subject)?.because;
    expect(candidates).toEqual([]);
    expect(
      closure({ type: 'memberRemovedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g1' }),
    ).toBe('the account is a member of the group again');
    expect(
      closure({ type: 'memberAddedOutside', accountId: 'ada', targetId: 'u1', groupId: 'g2' }),
    ).toBe('the account is no longer a member of the group');
    expect(closure({ type: 'accountStateChangedOutside', accountId: 'ada', targetId: 'u1' })).toBe(
      'the account is in the state the service set last',
    );
    expect(closure({ type: 'unlinkedMember', targetId: 'u9', groupId: 'g1' })).toBe(
      'the member is no longer in the group',
    );
    expect(
      evaluation.closure({
        type: 'memberAddedOutside',
        accountId: 'ada',
        targetId: 'u1',
        groupId: 'g3',
      }),
    ).toEqual({ because: expect.stringMatching(/no longer managed/), outOfScope: true });
    expect(
      evaluation.closure({ type: 'accountDeletedOutside', accountId: 'zed', targetId: 'u7' }),
    ).toEqual({ because: expect.stringMatching(/no longer links/), outOfScope: true });
    expect(
      evaluation.closure({
        type: 'memberRemovedOutside',
        accountId: 'ada',
        targetId: 'u1',
        groupId: 'g1',
      }),
    ).toEqual({ because: 'the account is a member of the group again', outOfScope: false });
  });
});
