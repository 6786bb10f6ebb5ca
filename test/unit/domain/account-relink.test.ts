import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../src/domain/account-record';
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
