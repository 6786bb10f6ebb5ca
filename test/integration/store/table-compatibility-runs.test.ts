import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompatibilityResult } from '../../../src/domain/compatibility-result';
import { tableClient } from '../../../src/store/storage-clients';
import { TableCompatibilityRuns } from '../../../src/store/table-compatibility-runs';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let runs: TableCompatibilityRuns;

beforeAll(async () => {
  storage = await startTestStorage();
  runs = new TableCompatibilityRuns(tableClient(storage.connection, 'CompatibilityRuns'));
});
afterAll(() => storage.close());

function result(
  connector: string,
  at: string,
  answer = 'ok',
): CompatibilityResult & { testAccount: string } {
  return {
    connector,
    at,
    jobId: `job-${at}`,
    verdict: 'does not fit',
    summary: 'the server does not fit: point(s) 5',
    points: [
      {
        number: 5,
        title: 'PATCH for users and groups, including password and active',
        outcome: 'does not fit',
        reason: 'PATCH password was refused',
        checks: [
          {
            aspect: 'password',
            holds: false,
            note: 'PATCH password was refused',
            evidence: [
              { request: 'PATCH https://app.example/scim/v2/Users/u1', status: 400, answer },
            ],
          },
        ],
      },
    ],
    suggestedSettings: [],
    actions: [{ action: 'setPassword', outcome: 'will fail', reason: 'refused', point: 5 }],
    judgedSettings: { memberValue: 'accountId' },
    testAccount: 'compat-test-1',
  };
}

describe('TableCompatibilityRuns: the last run per connector', () => {
  it('has none for a connector that never ran one', async () => {
    expect(await runs.last('never-ran')).toBeUndefined();
  });

  it('keeps a run whole, with what its kind added, and a new run replaces it', async () => {
    const first = result('hr/app #1', '2026-11-20T09:00:00.000Z');
    await runs.keep(first);
    expect(await runs.last('hr/app #1')).toEqual(first);

    const second = {
      ...result('hr/app #1', '2026-11-21T09:00:00.000Z'),
      verdict: 'fits' as const,
      actions: [],
    };
    await runs.keep(second);
    expect(await runs.last('hr/app #1')).toEqual(second);
    expect(await runs.last('hr/app #2')).toBeUndefined();
  });

  it('keeps a run larger than one column across several, and one too large for a row without its evidence', async () => {
    const large = result('large', '2026-11-22T09:00:00.000Z', 'x'.repeat(100_000));
    await runs.keep(large);
    expect(await runs.last('large')).toEqual(large);

    const huge = result('huge', '2026-11-22T09:00:00.000Z', 'y'.repeat(600_000));
    await runs.keep(huge);
    const kept = await runs.last('huge');
    expect(kept).toMatchObject({ evidenceDropped: true, verdict: 'does not fit' });
    expect(kept?.points[0]?.checks[0]).toMatchObject({
      note: 'PATCH password was refused',
      evidence: [],
    });
  });
});
