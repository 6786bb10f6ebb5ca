import { describe, expect, it } from 'vitest';
import { journalEntriesOf, journalEntryKey } from '../../../src/domain/journal-entry';
import { requestContextOf } from '../../../src/domain/request-context';

const AT = '2026-11-23T08:00:00.000Z';

describe('journalEntriesOf', () => {
  it("stamps every entry of a step with the request's context", () => {
    const entries = journalEntriesOf(
      {
        requestId: 'r1',
        connector: 'hr',
        accountId: 'ada',
        requestedBy: 'iga-workflow',
        reason: 'joiner',
        correlationId: 'CHG-42',
      },
      1,
      [
        { change: 'member added', groupId: 'g1', groupName: 'Sales' },
        { change: 'member added', groupId: 'g2' },
      ],
      AT,
    );
    expect(entries).toEqual([
      {
        key: journalEntryKey('r1', 1, 'member added', 'g1'),
        connector: 'hr',
        accountId: 'ada',
        requestId: 'r1',
        step: 1,
        change: 'member added',
        groupId: 'g1',
        groupName: 'Sales',
        requestedBy: 'iga-workflow',
        reason: 'joiner',
        correlationId: 'CHG-42',
        at: AT,
      },
      expect.objectContaining({ groupId: 'g2', correlationId: 'CHG-42' }),
    ]);
  });

  it('leaves the context out where the request gave none, and keys entries without it', () => {
    const [entry] = journalEntriesOf(
      { requestId: 'r1', connector: 'hr', accountId: 'ada' },
      0,
      [{ change: 'account created' }],
      AT,
    );
    expect(Object.keys(entry!).sort()).toEqual([
      'accountId',
      'at',
      'change',
      'connector',
      'key',
      'requestId',
      'step',
    ]);
    expect(entry!.key).toBe(journalEntryKey('r1', 0, 'account created'));
  });
});

describe('requestContextOf', () => {
  it('copies the context fields and nothing beside them', () => {
    const request = {
      requestId: 'r1',
      passwordSecret: 'request-password-x',
      correlationId: 'CHG-1',
      reason: 'r',
    };
    expect(requestContextOf(request)).toEqual({ correlationId: 'CHG-1', reason: 'r' });
  });
});
