import { describe, expect, it } from 'vitest';
import { noFindingVerdict } from '../../../src/cli/reconcile';

describe('reconcile: the verdict of a run without open findings', () => {
  it('says the target holds what the service assigned after a complete run', () => {
    expect(noFindingVerdict(true)).toBe(
      'No open finding: the target holds what the service assigned.',
    );
  });

  it('says it could not tell after an incomplete run, never that the target is clean', () => {
    const line = noFindingVerdict(false);
    expect(line).toContain('INCOMPLETE');
    expect(line).toContain('could not tell');
    expect(line).not.toMatch(/^No open finding: the target holds/);
  });
});
