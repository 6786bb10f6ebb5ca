import { describe, expect, it } from 'vitest';
import { intentKey, journalEntriesOf, journalEntryKey } from '../../../src/domain/journal-entry';
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

describe('journal and intent keys', () => {
  it('are the keys stored rows and recorded histories already hold', () => {
    // Written by earlier versions: a replayed write must find its intent, a rewritten entry
    // must upsert the row it wrote before.
    expect(journalEntryKey('req-1', 2, 'member added', 'g-42')).toBe(
      '2e307dfa569ce56265d664e2bd8f6ac4',
    );
    expect(journalEntryKey('req-1', 0, 'account created')).toBe('f9db882be017734dd375672efc9d76fa');
    expect(intentKey('req-1', 2, 'writeMemberships', 'r0', 'g-1,g-2')).toBe(
      '57338cf12c4c1a1f2e692f39629a36c0ddf3cd8d',
    );
  });
});
