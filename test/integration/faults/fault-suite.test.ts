import { describe, expect, it } from 'vitest';
import { runFaultSuite } from '../../faults/fault-suite';
import { BEYOND_WINDOW_RUN, SMALL_RUN } from '../../faults/profiles';
import { faultTotal, formatFaultReport } from '../../faults/report';

/**
 * The fault suite's small seeded run (the full one is `npm run faults`): both sandboxes with
 * every fault on, judged by their truth alone.
 */
describe('fault suite (small seeded run)', () => {
  it(
    'reports no false success, no false failure, an exact journal and the right memberships',
    { timeout: 120_000 },
    async () => {
      const result = await runFaultSuite(SMALL_RUN);
      const table = formatFaultReport(result, 'small run').join('\n');
      for (const tally of result.tallies) {
        expect(tally.requests, table).toBeGreaterThan(15);
        expect(faultTotal(tally), table).toBeGreaterThan(40);
        expect(tally.falseSuccesses, table).toEqual([]);
        expect(tally.falseFailures, table).toEqual([]);
        expect(tally.journalMissing, table).toEqual([]);
        expect(tally.journalDoubled, table).toEqual([]);
        expect(tally.journalInvented, table).toEqual([]);
        expect(tally.wrongMemberships, table).toEqual([]);
      }
    },
  );

  it('fails every membership step naming its groups when reads lag beyond 30 s, and never reports a false success', async () => {
    const result = await runFaultSuite({ ...BEYOND_WINDOW_RUN, accountsPerConnector: 4 });
    const table = formatFaultReport(result, 'lag beyond the window').join('\n');
    const [graph] = result.tallies;
    expect(graph?.falseSuccesses, table).toEqual([]);
    expect(graph?.falseFailures, table).toEqual([]);
    expect(graph?.expectedLagFailures, table).toBe(graph?.requests);
    expect(graph?.journalMissing, table).toEqual([]);
    expect(graph?.journalInvented, table).toEqual([]);
  }, 120_000);
});
