import { describe, expect, it } from 'vitest';
import { ORCHESTRATIONS, requestInstanceId } from '../../../src/workflows/names';
import { GRAPH, SCIM, useServiceBench } from '../../support/service-bench';

const bench = useServiceBench();

const states = (report: { steps: { state: string }[] }) => report.steps.map((s) => s.state);

/** The account's direct groups and enabled state on the target, from the sandbox's truth. */
function truth(connector: string, accountId: string) {
  const { scim, graph } = bench.sandboxes;
  if (connector === SCIM) {
    const user = scim.getUser(accountId);
    const groups = ['Engineering', 'Sales', 'Finance', 'Human Resources', 'Support', 'Marketing']
      .filter((name) => {
        const members = (scim.getGroup(name)?.members ?? []) as { value: string }[];
        return members.some((m) => m.value === accountId);
      })
      .sort();
    return { exists: user !== undefined, enabled: user?.active !== false, groups };
  }
  const id = graph.userIdByUpn(accountId);
  const user = id === undefined ? undefined : graph.getUser(id);
  const groups = ['Engineering', 'Sales', 'Finance', 'Human Resources', 'Support', 'Marketing']
    .filter((name) => {
      const group = bench.sandboxes.graphGroups[name];
      return id !== undefined && group !== undefined && graph.directMemberIds(group).includes(id);
    })
    .sort();
  return { exists: user !== undefined, enabled: user?.accountEnabled !== false, groups };
}

describe.each([
  [SCIM, 'ada.steps'],
  [GRAPH, 'ada.steps@contoso.example'],
])('provisioning request steps on %s', (connector, accountId) => {
  it('creates, grants two groups and locks, in order, and journals exactly that', async () => {
    const report = await bench.run({
      requestId: `steps-1-${connector}`,
      connector,
      account: { accountId, displayName: 'Ada Lovelace' },
      actions: [
        { type: 'create' },
        { type: 'grant', groups: ['Sales', 'Finance'] },
        { type: 'lock' },
      ],
    });
    expect(states(report)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(truth(connector, accountId)).toEqual({
      exists: true,
      enabled: false,
      groups: ['Finance', 'Sales'],
    });
    const journal = await bench.journal(connector, accountId);
    expect(journal.map((e) => `${e.step} ${e.change} ${e.groupName ?? ''}`.trim()).sort()).toEqual([
      '0 account created',
      '1 member added Finance',
      '1 member added Sales',
      '2 account locked',
    ]);
  });

  it('writes a lock of a locked account again, journals nothing, and says so', async () => {
    const report = await bench.run({
      requestId: `steps-2-${connector}`,
      connector,
      account: { accountId },
      actions: [{ type: 'lock' }, { type: 'grant', groups: ['Sales'] }],
    });
    expect(states(report)).toEqual(['succeeded', 'succeeded']);
    expect(report.steps[0]?.notices).toContain('account was already locked');
    expect(report.steps[1]?.notices.join(' ')).toContain('already as requested');
    expect(truth(connector, accountId).enabled).toBe(false);
    const journal = await bench.journal(connector, accountId);
    expect(journal.filter((e) => e.requestId === `steps-2-${connector}`)).toEqual([]);
  });

  it('fails at a grant of an unknown group, naming every unknown group, and skips the rest', async () => {
    const report = await bench.run({
      requestId: `steps-3-${connector}`,
      connector,
      account: { accountId },
      actions: [
        { type: 'grant', groups: ['Sales', 'No Such Group', 'Nor This'] },
        { type: 'unlock' },
      ],
    });
    expect(states(report)).toEqual(['failed', 'skipped']);
    expect(report.steps[0]?.error?.code).toBe('GROUP_NOT_FOUND');
    expect(report.steps[0]?.error?.message).toContain('No Such Group');
    expect(report.steps[0]?.error?.message).toContain('Nor This');
    expect(truth(connector, accountId).enabled).toBe(false);
  });

  it('deletes the account, and a delete of an absent account succeeds without a change', async () => {
    const deleted = await bench.run({
      requestId: `steps-4-${connector}`,
      connector,
      account: { accountId },
      actions: [{ type: 'delete' }],
    });
    expect(states(deleted)).toEqual(['succeeded']);
    expect(truth(connector, accountId).exists).toBe(false);
    const again = await bench.run({
      requestId: `steps-5-${connector}`,
      connector,
      account: { accountId },
      actions: [{ type: 'delete' }],
    });
    expect(states(again)).toEqual(['succeeded']);
    expect(again.steps[0]?.changes).toEqual([]);
  });

  it('fails a membership step on an absent account without writing', async () => {
    const report = await bench.run({
      requestId: `steps-6-${connector}`,
      connector,
      account: { accountId: connector === GRAPH ? 'nobody@contoso.example' : 'nobody' },
      actions: [{ type: 'grant', groups: ['Sales'] }],
    });
    expect(states(report)).toEqual(['failed']);
    expect(report.steps[0]?.error?.code).toBe('ACCOUNT_NOT_FOUND');
  });
});

describe('a request for a connector that is not configured', () => {
  it('fails its first step naming the connector (the API refuses it earlier)', async () => {
    await bench.runtime.driver.startNew(
      ORCHESTRATIONS.provisioningRequest,
      requestInstanceId('ghost'),
      {
        requestId: 'ghost',
        connector: 'ghost',
        account: { accountId: 'ada' },
        actions: [{ type: 'lock' }],
        fingerprint: 'f',
        capabilities: {
          visibilityWindowMs: 0,
          membershipReadScope: 'named',
          membershipWriteBatchSize: 1,
          membershipWritesSayIfInPlace: false,
        },
        source: 'http',
        receivedAt: new Date(bench.clock.now()).toISOString(),
      },
    );
    const report = await bench.finish('ghost');
    expect(report.steps[0]?.error?.code).toBe('CONNECTOR_NOT_FOUND');
  });
});
