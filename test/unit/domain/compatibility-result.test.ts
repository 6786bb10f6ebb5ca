import { describe, expect, it } from 'vitest';
import {
  summaryOf,
  verdictOf,
  type CompatibilityPoint,
} from '../../../src/domain/compatibility-result';

type Judged = Pick<CompatibilityPoint, 'number' | 'outcome' | 'fitsWith'>;

const points = (...outcomes: Array<Judged['outcome'] | Judged>): Judged[] =>
  outcomes.map((o, index) =>
    typeof o === 'string' ? { number: index + 1, outcome: o } : { ...o, number: index + 1 },
  );
const scimId = { setting: 'memberValue', value: 'scimId' };

describe('verdictOf: the run over its six points', () => {
  it('fits only when every point fits as configured', () => {
    expect(verdictOf(points('fits', 'fits', 'fits', 'fits', 'fits', 'fits'))).toBe('fits');
  });

  it('fits with the suggested settings when every other point fits with a setting the run tried', () => {
    const judged = points(
      'fits',
      'fits',
      { number: 3, outcome: 'does not fit', fitsWith: [scimId] },
      'fits',
      'fits',
      'fits',
    );
    expect(verdictOf(judged)).toBe('fits with the suggested settings');
    expect(summaryOf('fits with the suggested settings', judged)).toBe(
      'the server fits with memberValue: scimId (5 of 6 points fit as configured)',
    );
  });

  it('does not fit when a point fails with no setting that makes it fit, naming it', () => {
    const judged = points(
      'fits',
      'fits',
      { number: 3, outcome: 'does not fit', fitsWith: [scimId] },
      'does not fit',
      'fits',
      'could not tell',
    );
    expect(verdictOf(judged)).toBe('does not fit');
    expect(summaryOf('does not fit', judged)).toBe(
      'the server does not fit: point(s) 4 (3 of 6 points fit as configured; set memberValue: scimId as well)',
    );
  });

  it('could not tell when a point could not be tried and none fails', () => {
    const judged = points('fits', 'could not tell', 'fits', 'fits', 'fits', 'fits');
    expect(verdictOf(judged)).toBe('could not tell');
    expect(summaryOf('could not tell', judged)).toContain('point(s) 2 could not be tried');
  });
});
