import { describe, expect, it } from 'vitest';
import { decidePoint, judgePoints } from '../../../../src/connectors/scim/compatibility-points';
import type { CompatibilityCheck } from '../../../../src/domain/compatibility-result';

const seen = (
  aspect: string,
  holds: boolean | undefined,
  note = aspect,
  withSetting?: { setting: string; value: string },
): CompatibilityCheck => ({
  aspect,
  holds,
  note,
  evidence: [],
  ...(withSetting === undefined ? {} : { withSetting }),
});
const scimId = { setting: 'memberValue', value: 'scimId' };

describe('decidePoint: no verdict without a try (DESIGN invariant 11)', () => {
  it('fits only when every part of the point was seen to work', () => {
    expect(decidePoint(['eq', 'co'], [seen('eq', true), seen('co', true)]).outcome).toBe('fits');
    // The bug of issue 17: eq seen, co skipped, yet "fits".
    expect(
      decidePoint(['eq', 'co'], [seen('eq', true), seen('co', undefined, 'no group to search')]),
    ).toMatchObject({
      outcome: 'could not tell',
      unseen: ['co'],
    });
    expect(decidePoint(['eq', 'co'], [seen('eq', true)]).outcome).toBe('could not tell');
  });

  it('does not fit when a part was seen to fail, whatever else worked', () => {
    expect(
      decidePoint(['eq', 'co'], [seen('eq', true), seen('co', false), seen('co', true)]),
    ).toMatchObject({
      outcome: 'does not fit',
      failing: ['co'],
    });
  });

  it('fits with a setting only when the run saw the failing part work with it', () => {
    const fixed = [seen('member value', false), seen('member value', true, '', scimId)];
    expect(decidePoint(['member value'], fixed)).toEqual({
      outcome: 'does not fit',
      failing: ['member value'],
      unseen: ['member value'],
      fitsWith: [scimId],
    });
    const stillFailing = [seen('member value', false), seen('member value', false, '', scimId)];
    expect(decidePoint(['member value'], stillFailing).fitsWith).toBeUndefined();
    // A check with a suggested setting never makes the point fit as configured.
    expect(decidePoint(['member value'], [seen('member value', true, '', scimId)]).outcome).toBe(
      'could not tell',
    );
  });
});

describe('judgePoints: the checklist', () => {
  it('gives each point its reason and, where it does not fit, what to do', () => {
    const checks: CompatibilityCheck[][] = [
      [seen('endpoints', true, 'POST created the account')],
      [seen('credentials', undefined, 'the connector sends no credentials')],
      [
        seen('member value', false, 'the account ID was refused'),
        seen('member value', true, 'the id was taken', scimId),
      ],
      [seen('eq', true, 'eq found it'), seen('co', false, 'co was refused')],
      [],
      [],
    ];
    const points = judgePoints(checks, [], { noGroups: false });
    expect(points.map((p) => [p.number, p.outcome])).toEqual([
      [1, 'fits'],
      [2, 'could not tell'],
      [3, 'does not fit'],
      [4, 'does not fit'],
      [5, 'could not tell'],
      [6, 'could not tell'],
    ]);
    expect(points[0]).toMatchObject({ reason: 'POST created the account' });
    expect(points[0]?.advice).toBeUndefined();
    expect(points[1]).toMatchObject({
      reason: 'credentials: the connector sends no credentials',
      advice: 'configure bearer or Basic credentials for the connector and run again',
    });
    expect(points[2]).toMatchObject({
      reason: 'the account ID was refused',
      fitsWith: [scimId],
      advice: `set "memberValue": "scimId" in the connector's settings`,
    });
    expect(points[3]?.advice).toBe(
      'group search (co) will not work on this server; grants by group name use eq and still work',
    );
    expect(points[4]?.reason).toContain('password: not tried: the run did not get that far');
  });

  it('says what stopped the run on every point it could not reach', () => {
    const points = judgePoints([[], [seen('credentials', false, 'refused')], [], [], [], []], [], {
      stopped: 'the server refused the credentials (point 2)',
      noGroups: false,
    });
    expect(points[5]).toMatchObject({
      outcome: 'could not tell',
      reason: 'last logon: not tried: the server refused the credentials (point 2)',
      advice:
        'first fix what stopped the run (the server refused the credentials (point 2)), then run again',
    });
  });
});
