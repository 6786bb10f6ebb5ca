import { describe, expect, it } from 'vitest';
import { compatibilityJournalEntries } from '../../../src/domain/compatibility-journal';
import type { CompatibilityResult } from '../../../src/domain/compatibility-result';

function run(testAccount: string): CompatibilityResult {
  return {
    connector: 'hr',
    at: '2026-11-24T10:00:00.000Z',
    jobId: 'job-1',
    verdict: 'fits',
    summary: '',
    points: [],
    suggestedSettings: [],
    actions: [],
    judgedSettings: {},
    changes: [
      {
        step: 0,
        accountId: testAccount,
        change: 'account created',
        at: '2026-11-24T09:59:00.000Z',
      },
      {
        step: 1,
        accountId: testAccount,
        change: 'member added',
        groupId: 'g1',
        groupName: 'Sales',
        at: '2026-11-24T09:59:10.000Z',
      },
    ],
  };
}

describe('the journal entries of a compatibility run', () => {
  it('go under the job, say who asked, and keep each change of the test account', () => {
    const entries = compatibilityJournalEntries(run('compat-test-a'));
    expect(entries.map((entry) => [entry.requestId, entry.accountId, entry.change])).toEqual([
      ['job-1', 'compat-test-a', 'account created'],
      ['job-1', 'compat-test-a', 'member added'],
    ]);
    expect(entries[1]).toMatchObject({ groupName: 'Sales', requestedBy: 'compatibility run' });
  });

  it("of a retried job (a new run, a new test account) do not replace the first run's", () => {
    const first = compatibilityJournalEntries(run('compat-test-a')).map((entry) => entry.key);
    const retried = compatibilityJournalEntries(run('compat-test-b')).map((entry) => entry.key);
    expect(first.filter((key) => retried.includes(key))).toEqual([]);
    // The same run recorded again: the same keys, so nothing is written twice.
    expect(compatibilityJournalEntries(run('compat-test-a')).map((entry) => entry.key)).toEqual(
      first,
    );
  });
});
