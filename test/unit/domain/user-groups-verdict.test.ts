import { describe, expect, it } from 'vitest';
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
