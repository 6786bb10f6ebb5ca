import { describe, expect, it } from 'vitest';
import { endCut } from '../../../src/domain/user-groups-end';
import { keptVerdictAfter, type UserGroupsVerdict } from '../../../src/domain/user-groups-verdict';

/*
 * Which verdict on a SCIM server's user `groups` attribute is kept when another is recorded,
 * whatever order workers and compatibility runs write in: a connector's cut is never undone
 * by a run's "complete", and an older verdict written late never replaces a newer one.
 */
const connectorCut: UserGroupsVerdict = {
  verdict: 'cut',
  why: 'it left out group Lab',
  at: '2026-11-23T08:00:00.000Z',
  by: 'connector',
};
const runCut: UserGroupsVerdict = {
  verdict: 'cut',
  why: 'the run saw it leave out group Lab',
  at: '2026-11-23T09:00:00.000Z',
  by: 'compatibility run',
  jobId: 'run-1',
};
const runComplete: UserGroupsVerdict = {
  verdict: 'complete',
  why: 'the run saw it list and drop group Canteen',
  at: '2026-11-23T10:00:00.000Z',
  by: 'compatibility run',
  jobId: 'run-2',
};

describe('keptVerdictAfter', () => {
  it('keeps the first verdict recorded', () => {
    expect(keptVerdictAfter(undefined, runComplete)).toBe(runComplete);
  });

  it("never lets a later run's complete end a cut a connector caught", () => {
    expect(keptVerdictAfter(connectorCut, runComplete)).toBe(connectorCut);
  });

  it('takes a row that does not say who found the cut for a connector’s (the safe side)', () => {
    const legacy = { verdict: 'cut', why: 'old', at: connectorCut.at } as UserGroupsVerdict;
    expect(keptVerdictAfter(legacy, runComplete)).toBe(legacy);
  });

  it('lets a newer complete end a cut a compatibility run recorded, never an older one', () => {
    expect(keptVerdictAfter(runCut, runComplete)).toBe(runComplete);
    const olderComplete = { ...runComplete, at: '2026-11-23T08:30:00.000Z' };
    expect(keptVerdictAfter(runCut, olderComplete)).toBe(runCut);
    expect(keptVerdictAfter(runComplete, runCut)).toBe(runComplete);
  });

  it('takes a connector’s cut over a complete, even one written after it (order of arrival)', () => {
    expect(keptVerdictAfter(runComplete, connectorCut)).toBe(connectorCut);
    expect(keptVerdictAfter(runCut, connectorCut)).toBe(connectorCut);
  });
});

describe("an operator's end of a kept cut", () => {
  const runMended: UserGroupsVerdict = { ...runComplete, at: '2026-11-23T11:00:00.000Z' };
  const ask = { reason: 'vendor fix 4.2', byName: 'ada', at: '2026-11-23T12:00:00.000Z' };

  it('rests on a compatibility run that found the attribute complete after the cut, never on the word alone', () => {
    expect(endCut(connectorCut, undefined, ask)).toEqual({
      refused: expect.stringContaining('no compatibility run has told'),
    });
    const olderRun = { ...runComplete, at: '2026-11-23T07:00:00.000Z' };
    expect(endCut(connectorCut, olderRun, ask)).toEqual({
      refused: expect.stringContaining('older than the cut'),
    });
    expect(endCut(connectorCut, { ...runCut, at: runMended.at }, ask)).toEqual({
      refused: expect.stringContaining('found it cut'),
    });
    expect(endCut(undefined, runMended, ask)).toEqual({ nothing: expect.any(String) });
    expect(endCut(runComplete, runMended, ask)).toEqual({ nothing: expect.any(String) });
    const judged = endCut(connectorCut, runMended, ask);
    expect(judged).toEqual({
      ended: {
        verdict: 'complete',
        why: expect.stringContaining('"vendor fix 4.2"'),
        at: runMended.at,
        by: 'operator',
        byName: 'ada',
        endsCutOf: connectorCut.at,
        endedAt: ask.at,
        jobId: 'run-2',
      },
    });
  });

  it('replaces the cut it ended, and a cut seen after its run replaces it (never one seen before)', () => {
    const judged = endCut(connectorCut, runMended, ask);
    if (!('ended' in judged)) throw new Error('not ended');
    const end = judged.ended;
    expect(keptVerdictAfter(connectorCut, end)).toBe(end);
    expect(keptVerdictAfter(undefined, end)).toBe(end);
    // A cut caught after the one it ended, while the operator decided: kept over the end.
    const newerCut = { ...connectorCut, at: '2026-11-23T08:30:00.000Z' };
    expect(keptVerdictAfter(newerCut, end)).toBe(newerCut);
    // A worker keeping late the cut it saw before the run: the end stays.
    expect(keptVerdictAfter(end, connectorCut)).toBe(end);
    // Seen cut after the run that found it complete: the server cuts again.
    const cutAgain = { ...connectorCut, at: '2026-11-23T12:30:00.000Z' };
    expect(keptVerdictAfter(end, cutAgain)).toBe(cutAgain);
    // A later run's finding wins as between runs.
    const laterRunCut = { ...runCut, at: '2026-11-23T13:00:00.000Z' };
    expect(keptVerdictAfter(end, laterRunCut)).toBe(laterRunCut);
  });
});
