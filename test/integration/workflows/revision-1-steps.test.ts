import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTIVITIES } from '../../../src/workflows/names';
import { truthChanges, truthMark } from '../../support/journal-truth';
import {
  GRAPH,
  importCatalogue,
  requestActivityCalls,
  useServiceBench,
} from '../../support/service-bench';

/*
 * DESIGN: orchestrations replay their history. A request accepted before revision 2 (its
 * input has no revision) may be running when revision 2 is deployed: its steps must schedule
 * the activities and timers revision 1 did. Revision 1 read nothing back after a write whose
 * answer was lost; revision 2 reads it back. Judged by the activities each request scheduled
 * and by the Graph sandbox's truth log.
 */
const bench = useServiceBench();
beforeAll(() => importCatalogue(bench, GRAPH));
afterEach(() => {
  bench.sandboxes.graph.setFaults(undefined);
  vi.restoreAllMocks();
});

/** Starts the next requests with their input as revision 1 started them: no revision. */
function acceptedByRevision1(): void {
  const { driver } = bench.runtime;
  const startNew = driver.startNew.bind(driver);
  vi.spyOn(driver, 'startNew').mockImplementation((name, instanceId, input) => {
    const earlier = { ...(input as Record<string, unknown>) };
    delete earlier.revision;
    return startNew(name, instanceId, earlier);
  });
}

/** An account a request accepted now created, enabled. */
async function created(name: string): Promise<string> {
  const accountId = `${name}@contoso.example`;
  const report = await bench.run({
    requestId: `${name}-create`,
    connector: GRAPH,
    account: { accountId, displayName: name },
    actions: [{ type: 'create' }],
  });
  expect(report.status).toBe('succeeded');
  return accountId;
}

const journalOf = async (accountId: string, requestId: string) =>
  (await bench.journal(GRAPH, accountId))
    .filter((entry) => entry.requestId === requestId)
    .map((entry) => `${accountId.toLowerCase()} ${entry.change}`);

describe('a lock whose every answer is lost, in a request accepted before revision 2', () => {
  it('fails with the write error and reads nothing back, as revision 1 did', async () => {
    const { graph } = bench.sandboxes;
    const accountId = await created('earlier.lock');

    acceptedByRevision1();
    const since = truthMark(graph.truthLog());
    graph.setFaults({ seed: 11, lostAnswerRate: 1 });
    const report = await bench.run({
      requestId: 'earlier-lock',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    expect(graph.faultCounts()['lost answer']).toBeGreaterThan(0);
    // Graph applied the lock; revision 1 failed on its lost answer without a read-back.
    expect(truthChanges(graph.truthLog(), since)).toEqual([`${accountId} account locked`]);
    expect(report.status).toBe('failed');
    expect(report.steps[0]?.error?.code).toMatch(/^(TARGET_UNREACHABLE|TARGET_UNAVAILABLE)$/);
    expect(requestActivityCalls(bench, 'earlier-lock', ACTIVITIES.setAccountEnabled)).not.toEqual(
      [],
    );
    expect(requestActivityCalls(bench, 'earlier-lock', ACTIVITIES.readAccount)).toEqual([]);
  }, 60_000);

  it('a request accepted now reads the lost lock back and journals what the truth shows', async () => {
    const { graph } = bench.sandboxes;
    const accountId = await created('now.lock');
    const since = truthMark(graph.truthLog());
    graph.setFaults({ seed: 12, lostAnswerRate: 1 });
    const report = await bench.run({
      requestId: 'now-lock',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });
    const truth = truthChanges(graph.truthLog(), since);
    expect(truth).toEqual([`${accountId} account locked`]);
    expect(requestActivityCalls(bench, 'now-lock', ACTIVITIES.readAccount)).not.toEqual([]);
    expect(await journalOf(accountId, 'now-lock')).toEqual(truth);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
  }, 60_000);
});
