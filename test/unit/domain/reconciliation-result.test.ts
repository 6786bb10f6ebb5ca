import { describe, expect, it } from 'vitest';
import {
  emptyPass,
  emptyTally,
  reconciliationResult,
  type BulkPass,
} from '../../../src/domain/reconciliation-result';

const bulkOf = (extra: Partial<BulkPass>): BulkPass => ({
  ...emptyPass(),
  mode: 'full',
  read: { groups: 1, accounts: 1 },
  ...extra,
});

describe('a reconciliation result', () => {
  it('counts what the last tally read from the store, not what the passes say they did', () => {
    const stored = emptyTally();
    stored.open.memberAddedOutside = 1;
    stored.found.memberAddedOutside = 1;
    stored.closed.memberRemovedOutside = 1;
    // The bulk pass run twice: its second attempt says it found again what the first stored.
    const bulk = bulkOf({ found: { memberAddedOutside: 2 }, tally: emptyTally() });
    const later = { ...emptyPass(), found: { memberAddedOutside: 2 }, tally: stored };
    const result = reconciliationResult(bulk, [later], []);
    expect(result.findings.memberAddedOutside).toBe(1);
    expect(result.found.memberAddedOutside).toBe(1);
    expect(result.closed).toBe(1);
  });

  it('a later pass that failed (no tally) leaves the counts of the last pass that read one', () => {
    const stored = emptyTally();
    stored.open.unlinkedMember = 3;
    const failed = { ...emptyPass(), incomplete: ['could not be judged'] };
    const result = reconciliationResult(bulkOf({ tally: stored }), [failed], []);
    expect(result.findings.unlinkedMember).toBe(3);
    expect(result.complete).toBe(false);
  });

  it('adds up the passes of a history recorded before tallies were read', () => {
    const bulk = bulkOf({
      open: { memberAddedOutside: 2 },
      found: { memberAddedOutside: 1 },
      closed: { memberRemovedOutside: 1 },
    });
    const later = { ...emptyPass(), found: { memberAddedOutside: 1 } };
    const result = reconciliationResult(bulk, [later], []);
    expect(result.findings.memberAddedOutside).toBe(3);
    expect(result.found.memberAddedOutside).toBe(2);
    expect(result.closed).toBe(1);
  });
});
