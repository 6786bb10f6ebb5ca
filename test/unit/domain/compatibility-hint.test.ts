import { describe, expect, it } from 'vitest';
import { explainFailure, isRefusalByTarget } from '../../../src/domain/compatibility-hint';
import type { CompatibilityResult } from '../../../src/domain/compatibility-result';
import type { SerializedError } from '../../../src/domain/errors';

const run: CompatibilityResult = {
  connector: 'hr-app',
  at: '2026-11-20T09:30:00.000Z',
  jobId: 'job-1',
  verdict: 'does not fit',
  summary: 'the server does not fit: point(s) 5',
  points: [],
  suggestedSettings: [],
  actions: [
    {
      action: 'setPassword',
      outcome: 'will fail',
      reason: 'PATCH password answered 400 invalidPath',
      point: 5,
    },
    {
      action: 'grant',
      outcome: 'works',
      reason: "the server's own user id was accepted",
      point: 3,
      needs: [{ setting: 'memberValue', value: 'scimId' }],
    },
    { action: 'lock', outcome: 'works', reason: 'PATCH active false locked it', point: 5 },
  ],
  judgedSettings: { memberValue: 'accountId', 'auth.type': 'bearer' },
};

const settings: Record<string, string> = { memberValue: 'accountId', 'auth.type': 'bearer' };
const current = (setting: string) => settings[setting];

const refused: SerializedError = {
  code: 'SCIM_INVALID_VALUE',
  message: 'connector "hr-app": PATCH .../Users/u1 answered 400 invalidPath',
  retryable: false,
  status: 400,
  object: 'ada',
  details: { scimType: 'invalidPath' },
};

describe('explainFailure: a failed action read against the last compatibility run', () => {
  it('says an action the run found unsupported is not supported, naming the run and point, with the server answer kept', () => {
    const explained = explainFailure(refused, 'setPassword', run, current);
    expect(explained.code).toBe('SCIM_INVALID_VALUE');
    expect(explained.message).toBe(
      'setPassword is not supported by this server: compatibility run of 2026-11-20T09:30:00.000Z, point 5 ' +
        "(PATCH password answered 400 invalidPath). The server's answer: " +
        refused.message,
    );
    expect(explained.details).toEqual({
      scimType: 'invalidPath',
      compatibilityRun: {
        at: run.at,
        jobId: 'job-1',
        action: 'setPassword',
        outcome: 'will fail',
        point: 5,
        reason: 'PATCH password answered 400 invalidPath',
      },
    });
  });

  it('names the setting an action works with when the connector does not have it', () => {
    const mismatch: SerializedError = {
      code: 'MEMBERSHIP_MISMATCH',
      message: 'group Sales: missing',
      retryable: false,
    };
    const explained = explainFailure(mismatch, 'grant', run, current);
    expect(explained.message).toMatch(
      /^grant needs memberValue: scimId on this server: compatibility run of .+, point 3; the connector has memberValue: accountId\. /,
    );
    expect(explained.details?.compatibilityRun).toMatchObject({
      outcome: 'needs settings',
      needs: [{ setting: 'memberValue', value: 'scimId' }],
    });
  });

  it('leaves alone an action that worked, one that needs a setting the connector has now, and failures of reach', () => {
    expect(explainFailure(refused, 'lock', run, current)).toBe(refused);
    expect(
      explainFailure(refused, 'grant', run, (s) => (s === 'memberValue' ? 'scimId' : current(s))),
    ).toBe(refused);
    const unreachable: SerializedError = {
      code: 'TARGET_UNREACHABLE',
      message: 'no route',
      retryable: true,
    };
    const missing: SerializedError = {
      code: 'ACCOUNT_NOT_FOUND',
      message: 'gone',
      retryable: false,
      status: 404,
    };
    expect(explainFailure(unreachable, 'setPassword', run, current)).toBe(unreachable);
    expect(explainFailure(missing, 'setPassword', run, current)).toBe(missing);
    expect(explainFailure(refused, 'setPassword', undefined, current)).toBe(refused);
  });

  it('says when the connector settings changed since the run', () => {
    const explained = explainFailure(refused, 'setPassword', run, (s) =>
      s === 'auth.type' ? 'basic' : current(s),
    );
    expect(explained.message).toContain(
      "the connector's auth.type changed since that run: run it again",
    );
  });

  it('counts refusals and unconfirmed writes as the target not doing it, never throttling or conflicts', () => {
    expect(isRefusalByTarget({ ...refused, status: 403 })).toBe(true);
    expect(isRefusalByTarget({ ...refused, status: 501 })).toBe(true);
    expect(
      isRefusalByTarget({ code: 'ACCOUNT_STATE_NOT_CONFIRMED', message: '', retryable: false }),
    ).toBe(true);
    for (const status of [401, 404, 409, 429, 503]) {
      expect(isRefusalByTarget({ ...refused, status })).toBe(false);
    }
  });
});
