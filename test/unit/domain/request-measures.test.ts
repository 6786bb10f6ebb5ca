import { describe, expect, it } from 'vitest';
import { requestMeasures } from '../../../src/domain/request-measures';
import type { RequestReport, StepReport } from '../../../src/domain/request-report';

const step = (over: Partial<StepReport> & Pick<StepReport, 'index' | 'action' | 'state'>) => ({
  changes: [],
  notices: [],
  ...over,
});

const report = (steps: StepReport[]): RequestReport => ({
  requestId: 'r1',
  connector: 'entra',
  accountId: 'jane@contoso.com',
  status: steps.some((s) => s.state === 'failed') ? 'failed' : 'succeeded',
  steps,
});

describe('requestMeasures', () => {
  it('measures each step that ran, from its start to its verdict, with its read-back', () => {
    const measures = requestMeasures(
      report([
        step({
          index: 0,
          action: 'create',
          state: 'succeeded',
          startedAt: '2026-11-24T08:00:00.000Z',
          finishedAt: '2026-11-24T08:00:01.500Z',
        }),
        step({
          index: 1,
          action: 'grant',
          state: 'succeeded',
          startedAt: '2026-11-24T08:00:01.500Z',
          finishedAt: '2026-11-24T08:00:08.500Z',
        }),
      ]),
      [undefined, { reads: 3, elapsedMs: 6_000, visible: true }],
    );
    expect(measures).toEqual({
      outcome: 'succeeded',
      steps: [
        { action: 'create', outcome: 'succeeded', seconds: 1.5 },
        {
          action: 'grant',
          outcome: 'succeeded',
          seconds: 7,
          verification: { reads: 3, elapsedMs: 6_000, visible: true },
        },
      ],
    });
  });

  it('gives a failed request the code of the step that failed it, and skips what never ran', () => {
    const error = { code: 'MEMBERSHIP_MISMATCH' as const, message: 'x', retryable: false };
    const measures = requestMeasures(
      report([
        step({
          index: 0,
          action: 'grant',
          state: 'failed',
          error,
          startedAt: '2026-11-24T08:00:00.000Z',
          finishedAt: '2026-11-24T08:00:31.000Z',
        }),
        step({ index: 1, action: 'lock', state: 'skipped' }),
      ]),
      [],
    );
    expect(measures).toEqual({
      outcome: 'failed',
      errorType: 'MEMBERSHIP_MISMATCH',
      steps: [
        { action: 'grant', outcome: 'failed', errorType: 'MEMBERSHIP_MISMATCH', seconds: 31 },
      ],
    });
  });

  it('counts a request whose lease never came, with no step measured', () => {
    const error = { code: 'ACCOUNT_BUSY' as const, message: 'x', retryable: true };
    expect(
      requestMeasures(report([step({ index: 0, action: 'create', state: 'failed', error })]), []),
    ).toEqual({ outcome: 'failed', errorType: 'ACCOUNT_BUSY', steps: [] });
  });
});
