import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectorSettings } from '../../../src/config/connector-settings';
import type { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { GRAPH, useServiceBench } from '../../support/service-bench';

/**
 * Revision 4: an update succeeds only on a read that shows every value it wrote. Graph's
 * replicas may not show a new value within the 30 s window; where the value was unset
 * before, such a read shows no value at all, which confirms nothing (DESIGN invariant 11).
 * Judged by the sandbox's committed state and the journal.
 */
const bench = useServiceBench({
  connectorSettings: (settings) =>
    settings.name === GRAPH
      ? ({ ...settings, mapping: { department: 'department' } } as ConnectorSettings)
      : settings,
});
afterEach(() => {
  bench.sandboxes.graph.setReplicationDelay(0);
  vi.restoreAllMocks();
});

const upn = (name: string) => `${name}@contoso.example`;
function user(accountId: string): Record<string, unknown> | undefined {
  const id = bench.sandboxes.graph.userIdByUpn(accountId);
  return id === undefined ? undefined : bench.sandboxes.graph.getUser(id);
}
const journaled = async (accountId: string, requestId: string) =>
  (await bench.journal(GRAPH, accountId))
    .filter((entry) => entry.requestId === requestId)
    .map((entry) => entry.change);

async function create(name: string): Promise<string> {
  const accountId = upn(name);
  const report = await bench.run({
    requestId: `${name}-create`,
    connector: GRAPH,
    account: { accountId, displayName: name },
    actions: [{ type: 'create' }],
  });
  expect(report.status, JSON.stringify(report)).toBe('succeeded');
  // A minute on: every replica shows the new account, before any delay is set.
  (bench.clock as VirtualClock).advanceBy(60_000);
  return accountId;
}

/** Starts the next requests with their input as revision 3 started them. */
function acceptedByRevision3(): void {
  const { driver } = bench.runtime;
  const startNew = driver.startNew.bind(driver);
  vi.spyOn(driver, 'startNew').mockImplementation((name, instanceId, input) =>
    startNew(name, instanceId, { ...(input as Record<string, unknown>), revision: 3 }),
  );
}

/** Sets a department never set before, while no replica shows a write for 45 s. */
async function setDepartmentUnseen(requestId: string, accountId: string) {
  bench.sandboxes.graph.setReplicationDelay(45_000);
  return bench.run({
    requestId,
    connector: GRAPH,
    account: { accountId, attributes: { department: 'Research' } },
    actions: [{ type: 'update' }],
  });
}

describe('an update no read shows within the window', () => {
  it('is not confirmed: ACCOUNT_STATE_NOT_CONFIRMED naming the value no read showed, the write journaled', async () => {
    const accountId = await create('unseen.update');
    expect(user(accountId)?.['department'] ?? null).toBeNull();
    const report = await setDepartmentUnseen('unseen.update-1', accountId);
    // The write reached the directory; no read in the window showed it.
    expect(user(accountId)?.['department']).toBe('Research');
    expect(report.status).toBe('failed');
    const error = report.steps[0]?.error;
    expect(error?.code).toBe('ACCOUNT_STATE_NOT_CONFIRMED');
    expect(error?.message).toContain(`update of account "${accountId}" not confirmed`);
    expect(error?.message).toContain('no read shows a value for: attributes.department');
    expect(error?.details).toMatchObject({ unreadable: ['attributes.department'] });
    // Graph acknowledged it and nothing refutes it: the write stays journaled.
    expect(await journaled(accountId, 'unseen.update-1')).toEqual(['account updated']);
  });

  it('succeeds once a read in the window shows the value', async () => {
    const accountId = await create('seen.update');
    bench.sandboxes.graph.setReplicationDelay(10_000);
    const report = await bench.run({
      requestId: 'seen.update-1',
      connector: GRAPH,
      account: { accountId, attributes: { department: 'Research' } },
      actions: [{ type: 'update' }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(user(accountId)?.['department']).toBe('Research');
    expect(await journaled(accountId, 'seen.update-1')).toEqual(['account updated']);
  });

  it('a request accepted by revision 3 ends as revision 3 did, so that its history replays', async () => {
    const accountId = await create('unseen.rev3');
    acceptedByRevision3();
    const report = await setDepartmentUnseen('unseen.rev3-1', accountId);
    expect(report.status).toBe('succeeded');
    expect(report.steps[0]?.notices?.join(' ')).toContain(
      'not readable back from the target, so not verified: attributes.department',
    );
  });
});
