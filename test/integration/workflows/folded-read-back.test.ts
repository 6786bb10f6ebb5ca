import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { ACTIVITIES, requestInstanceId } from '../../../src/workflows/names';
import { truthChanges, truthMark } from '../../support/journal-truth';
import {
  GRAPH,
  importCatalogue,
  requestActivityCalls,
  SCIM,
  useServiceBench,
} from '../../support/service-bench';

/*
 * Revision 3: a membership write the step reads back at once makes that first read-back in
 * its own activity, one activity fewer per membership step. The read verifies only (DESIGN
 * invariant 9): one that fails is made again in an activity of its own, the write not sent
 * again; a Graph replica that lags is re-read on durable timers within the 30 s window.
 * Judged by the orchestration's history and the sandboxes' truth.
 */
const bench = useServiceBench({
  // One retry per call: the injected 503s below outlast the folded read's attempts.
  connectorSettings: (settings) => ({ ...settings, maxRetries: 1 }),
});
beforeAll(() => importCatalogue(bench, GRAPH));
afterEach(() => {
  bench.sandboxes.scim.clearInjected();
  bench.sandboxes.graph.setReplicationDelay(0);
  vi.restoreAllMocks();
});

/** Starts the next requests with their input as revision 2 started them. */
function acceptedByRevision2(): void {
  const { driver } = bench.runtime;
  const startNew = driver.startNew.bind(driver);
  vi.spyOn(driver, 'startNew').mockImplementation((name, instanceId, input) =>
    startNew(name, instanceId, { ...(input as Record<string, unknown>), revision: 2 }),
  );
}

/** The activities a request's orchestration scheduled: its history's TaskScheduled events. */
function scheduled(requestId: string): string[] {
  return bench.runtime.driver
    .history(requestInstanceId(requestId))
    .filter((event) => event.EventType === HISTORY_EVENT.TaskScheduled)
    .map((event) => event.Name);
}

/**
 * Runs one action for a new SCIM user whose first read after the first write answers 503
 * twice (both attempts of the folded read); returns the report, the truth log's mark before
 * it and the SCIM requests from the first write on, as `METHOD status`.
 */
async function withFoldedReadFailing(requestId: string, accountId: string, action: object) {
  const { scim } = bench.sandboxes;
  scim.seedUsers([{ userName: accountId }]);
  const since = truthMark(scim.truthLog());
  scim.clearRequests();
  scim.injectServerErrors(2, 503, { readsOnly: true, afterWrites: 1 });
  const report = await bench.run({
    requestId,
    connector: SCIM,
    account: { accountId },
    actions: [action],
  });
  const requests = scim.requests.slice(scim.requests.findIndex((r) => r.method === 'PATCH'));
  return { report, since, afterWrite: requests.map((r) => `${r.method} ${r.status}`) };
}

const readsOf = (requestId: string) =>
  requestActivityCalls(bench, requestId, ACTIVITIES.readMemberships);
const writesOf = (requestId: string) =>
  requestActivityCalls(bench, requestId, ACTIVITIES.writeMemberships);

describe('a membership write that reads back in its own activity (revision 3)', () => {
  it('grants on SCIM with one activity fewer than revision 2, as the truth shows', async () => {
    const { scim, scimGroups } = bench.sandboxes;
    scim.seedUsers([{ userName: 'fold.now' }, { userName: 'fold.before' }]);
    const granted = [scimGroups['Sales']!, scimGroups['Finance']!].sort();
    const grant = (requestId: string, accountId: string) =>
      bench.run({
        requestId,
        connector: SCIM,
        account: { accountId },
        actions: [{ type: 'grant', groups: ['Sales', 'Finance'] }],
      });

    const since = truthMark(scim.truthLog());
    const now = await grant('fold.now-1', 'fold.now');
    acceptedByRevision2();
    const before = await grant('fold.before-1', 'fold.before');

    for (const report of [now, before]) expect(report.status).toBe('succeeded');
    expect(scim.groupIdsOf('fold.now').sort()).toEqual(granted);
    expect(scim.groupIdsOf('fold.before').sort()).toEqual(granted);
    expect(truthChanges(scim.truthLog(), since)).toHaveLength(4);
    // Revision 2: a read before, the write, a read back. Revision 3: the read back rides on
    // the write, and nothing else changes.
    expect(readsOf('fold.before-1')).toHaveLength(2);
    expect(readsOf('fold.now-1')).toHaveLength(1);
    const withoutRead = [...scheduled('fold.before-1')];
    withoutRead.splice(withoutRead.lastIndexOf(ACTIVITIES.readMemberships), 1);
    expect(scheduled('fold.now-1')).toEqual(withoutRead);
    expect(now.steps[0]?.state).toBe('succeeded');
  });

  it('revokes on Graph with the read back in the write activity', async () => {
    const { graph, graphGroups } = bench.sandboxes;
    const accountId = 'fold.revoke@contoso.example';
    const userId = graph.addUser({ userPrincipalName: accountId, displayName: 'Fold Revoke' }).id;
    graph.addMember(graphGroups['Sales']!, userId);
    const since = truthMark(graph.truthLog());

    const report = await bench.run({
      requestId: 'fold.revoke-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'revoke', groups: ['Sales'] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthChanges(graph.truthLog(), since)).toEqual([
      `${accountId} member removed ${graphGroups['Sales']}`,
    ]);
    expect(graph.directMemberIds(graphGroups['Sales']!)).not.toContain(userId);
    // The read before the write; the read back came with the write's answers.
    expect(readsOf('fold.revoke-1')).toHaveLength(1);
    const [write] = writesOf('fold.revoke-1');
    expect(write?.result).toMatchObject({ ok: true, value: { readBack: { ok: true } } });
  });

  it('reads again in an activity of its own when the folded read fails, the write sent once', async () => {
    const { scim, scimGroups } = bench.sandboxes;
    const accountId = 'fold.read-fails';
    const sales = scimGroups['Sales']!;
    const { report, since, afterWrite } = await withFoldedReadFailing(
      'fold.read-fails-1',
      accountId,
      { type: 'grant', groups: ['Sales'] },
    );

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} member added ${sales}`]);
    expect(scim.groupIdsOf(accountId)).toEqual([sales]);
    // One PATCH: the write was not sent again; after it, two 503s and then a read that showed it.
    expect(afterWrite).toEqual([
      expect.stringMatching(/^PATCH 20\d$/),
      'GET 503',
      'GET 503',
      'GET 200',
    ]);
    const writes = writesOf('fold.read-fails-1');
    expect(writes).toHaveLength(1);
    expect(writes[0]?.failure).toBeUndefined();
    expect(writes[0]?.result).toMatchObject({
      ok: true,
      value: {
        readBack: {
          ok: false,
          error: {
            code: 'TARGET_UNAVAILABLE',
            message: expect.stringMatching(/^read-back failed: /),
          },
        },
      },
    });
    // The read before, and the read again after the folded one failed.
    expect(readsOf('fold.read-fails-1')).toHaveLength(2);
    expect(report.steps[0]?.changes).toEqual([
      expect.objectContaining({ change: 'member added', groupId: sales }),
    ]);
  });

  it('verifies a Graph grant that lagging replicas hide, re-reading on timers within the window', async () => {
    const { graph, graphGroups } = bench.sandboxes;
    const accountId = 'fold.lag@contoso.example';
    const userId = graph.addUser({ userPrincipalName: accountId, displayName: 'Fold Lag' }).id;
    graph.setReplicationDelay(5_000);

    const report = await bench.run({
      requestId: 'fold.lag-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Sales'] }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(graph.directMemberIds(graphGroups['Sales']!)).toContain(userId);
    // The folded read showed nothing yet: re-reads of their own, after timers, showed it.
    const [write] = writesOf('fold.lag-1');
    expect(write?.result).toMatchObject({ ok: true, value: { readBack: { ok: true } } });
    // The first read is the one before the write.
    const rereads = readsOf('fold.lag-1').slice(1);
    expect(rereads.length).toBeGreaterThan(0);
    expect(rereads.at(-1)!.scheduledAt - write!.scheduledAt).toBeGreaterThanOrEqual(5_000);
    expect(rereads.at(-1)!.scheduledAt - write!.scheduledAt).toBeLessThanOrEqual(30_000);
    expect(scheduled('fold.lag-1')).toContain(ACTIVITIES.readMemberships);
    expect(report.steps[0]?.notices).toContain(`verified after ${rereads.length + 1} reads`);
  });
});

describe('a grant to an account the target does not know yet', () => {
  it('reads back only after the write the target took, each read a verification read', async () => {
    const { graph, graphGroups } = bench.sandboxes;
    const accountId = 'fold.new@contoso.example';
    // A new user stays unknown to writes for 2 s: the first $batch is refused, sent again.
    graph.setNewObjectWriteLag(2_000);
    graph.clearRequests();
    try {
      const report = await bench.run({
        requestId: 'fold.new-1',
        connector: GRAPH,
        account: { accountId, displayName: 'Fold New' },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
      });
      expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
      const userId = graph.userIdByUpn(accountId)!;
      expect(graph.directMemberIds(graphGroups['Sales']!)).toContain(userId);
      expect(graph.faultCounts()['new object 404']).toBeGreaterThan(0);
      expect(writesOf('fold.new-1').length).toBeGreaterThan(1);
      // No read after the refused write: every memberOf read is one the step verified with.
      const memberOf = graph.requests.filter(
        (r) => r.method === 'GET' && r.path === `/v1.0/users/${userId}/memberOf`,
      );
      const reads = Number(
        /verified after (\d+) reads/.exec(report.steps[1]!.notices.join())?.[1] ?? 1,
      );
      expect(memberOf).toHaveLength(reads);
    } finally {
      graph.setNewObjectWriteLag(0);
    }
  });
});

describe('an account write that reads back in its own activity (revision 3)', () => {
  const readAccountsOf = (requestId: string) =>
    requestActivityCalls(bench, requestId, ACTIVITIES.readAccount);

  it('locks on Graph with no read activity after the write, as the truth shows', async () => {
    const { graph } = bench.sandboxes;
    const accountId = 'fold.lock@contoso.example';
    graph.addUser({ userPrincipalName: accountId, displayName: 'Fold Lock' });
    const since = truthMark(graph.truthLog());

    const report = await bench.run({
      requestId: 'fold.lock-1',
      connector: GRAPH,
      account: { accountId },
      actions: [{ type: 'lock' }],
    });

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthChanges(graph.truthLog(), since)).toEqual([`${accountId} account locked`]);
    expect(readAccountsOf('fold.lock-1')).toEqual([]);
    const [lock] = requestActivityCalls(bench, 'fold.lock-1', ACTIVITIES.setAccountEnabled);
    expect(lock?.result).toMatchObject({ ok: true, value: { readBack: { ok: true } } });
  });

  it('reads a SCIM lock again in an activity of its own when the folded read fails, the PATCH sent once', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'fold.lock-read-fails';
    const { report, since, afterWrite } = await withFoldedReadFailing(
      'fold.lock-read-fails-1',
      accountId,
      { type: 'lock' },
    );

    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(truthChanges(scim.truthLog(), since)).toEqual([`${accountId} account locked`]);
    expect(scim.getUser(accountId)?.active).toBe(false);
    expect(afterWrite).toEqual([
      expect.stringMatching(/^PATCH 20\d$/),
      'GET 503',
      'GET 503',
      'GET 200',
    ]);
    const locks = requestActivityCalls(
      bench,
      'fold.lock-read-fails-1',
      ACTIVITIES.setAccountEnabled,
    );
    expect(locks).toHaveLength(1);
    expect(locks[0]?.result).toMatchObject({
      ok: true,
      value: { readBack: { ok: false, error: { code: 'TARGET_UNAVAILABLE' } } },
    });
    expect(readAccountsOf('fold.lock-read-fails-1')).toHaveLength(1);
    expect(report.steps[0]?.changes).toEqual([{ change: 'account locked' }]);
  });
});
