import { describe, expect, it } from 'vitest';
import { applyRecordUpdate, type AccountRecord } from '../../../src/domain/account-record';
import { judgeOperatorLink } from '../../../src/domain/operator-link';
import { judgeNameMatch } from '../../../src/domain/account-relink';

const where = { connector: 'entra', accountId: 'ada@contoso.example' };
const found = { id: 'y-2', accountId: 'ada@contoso.example', enabled: true, displayName: 'Ada N.' };
const at = Date.parse('2026-01-05T09:00:00Z');

function record(createdAt?: string): AccountRecord {
  return {
    connector: 'entra',
    accountId: 'ada@contoso.example',
    targetId: 'x-1',
    linkedAt: '2026-01-05T08:00:00.000Z',
    assignedGroups: [],
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

describe('judgeNameMatch', () => {
  it('refuses another account under the name of a linked one that is gone, naming both ids', () => {
    const judged = judgeNameMatch(where, record(), found, at, 30_000);
    expect(judged).toMatchObject({
      code: 'ACCOUNT_EXISTS',
      object: 'ada@contoso.example',
      retryable: false,
      details: { linkedTargetId: 'x-1', targetId: 'y-2', enabled: true, linked: false },
    });
    expect(judged !== 'lag' && judged.message).toContain('id x-1');
    expect(judged !== 'lag' && judged.message).toContain('id y-2, "Ada N.", enabled');
  });

  it('refuses when the service created the linked account longer ago than the visibility window', () => {
    const judged = judgeNameMatch(where, record('2026-01-05T08:59:00.000Z'), found, at, 30_000);
    expect(judged).toMatchObject({ code: 'ACCOUNT_EXISTS' });
  });

  it('takes a "not found" of an account the service created within the window for lag', () => {
    expect(judgeNameMatch(where, record('2026-01-05T08:59:45.000Z'), found, at, 30_000)).toBe(
      'lag',
    );
  });

  it('never takes it for lag on a target without replication lag (window 0)', () => {
    const judged = judgeNameMatch(where, record('2026-01-05T09:00:00.000Z'), found, at, 0);
    expect(judged).toMatchObject({ code: 'ACCOUNT_EXISTS' });
  });
});

describe("judgeOperatorLink (an operator's link after ACCOUNT_EXISTS)", () => {
  const ask = { targetId: 'y-2', reason: 'HR-1234', byName: 'bob', at: '2026-01-05T09:00:00.000Z' };
  const gone = { holder: found, linked: undefined };

  it('links the account ID to the object that holds it when the linked one is gone, keeping who, why and what was linked', () => {
    const judged = judgeOperatorLink(where, record(), gone, ask, at, 30_000);
    expect(judged).toEqual({
      link: {
        targetId: 'y-2',
        linkedAt: ask.at,
        linkedBy: { byName: 'bob', reason: 'HR-1234', at: ask.at, fromTargetId: 'x-1' },
      },
    });
    // The record then links the new object, with nothing of the old one's state.
    const linked = applyRecordUpdate(
      { ...record(), assignedGroups: ['g1'], enabled: false, enabledAt: ask.at },
      'entra',
      where.accountId,
      'link' in judged ? { link: judged.link } : {},
    );
    expect(linked).toMatchObject({
      targetId: 'y-2',
      assignedGroups: [],
      linkedBy: { fromTargetId: 'x-1' },
    });
    expect(linked?.enabled).toBeUndefined();
    // A request linking another object later drops the operator's note.
    const relinked = applyRecordUpdate(linked, 'entra', where.accountId, {
      link: { targetId: 'z-3', linkedAt: ask.at },
    });
    expect(relinked?.linkedBy).toBeUndefined();
  });

  it('refuses what the target does not show: the linked object still there, another holder, no holder, no record', () => {
    const refusal = (judged: ReturnType<typeof judgeOperatorLink>) =>
      'refused' in judged ? judged.refused : `not refused: ${JSON.stringify(judged)}`;
    expect(
      refusal(
        judgeOperatorLink(where, record(), { holder: found, linked: found }, ask, at, 30_000),
      ),
    ).toContain('still there');
    const other = { ...found, id: 'w-9' };
    expect(
      refusal(
        judgeOperatorLink(where, record(), { holder: other, linked: undefined }, ask, at, 30_000),
      ),
    ).toContain('held by id w-9');
    expect(
      refusal(
        judgeOperatorLink(
          where,
          record(),
          { holder: undefined, linked: undefined },
          ask,
          at,
          30_000,
        ),
      ),
    ).toContain('no account on the target holds');
    expect(refusal(judgeOperatorLink(where, undefined, gone, ask, at, 30_000))).toContain(
      'links it to no object',
    );
  });

  it('refuses while the linked object may only be lagging (created by the service within the window)', () => {
    const judged = judgeOperatorLink(
      where,
      record('2026-01-05T08:59:45.000Z'),
      gone,
      ask,
      at,
      30_000,
    );
    expect('refused' in judged && judged.refused).toContain('visibility window');
  });

  it('says a link to the object linked already is nothing to do', () => {
    expect(
      judgeOperatorLink(where, record(), gone, { ...ask, targetId: 'x-1' }, at, 30_000),
    ).toEqual({
      already: expect.stringContaining('linked to id x-1 already'),
    });
  });
});
