import { afterEach, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/connectors/connector';
import { ScimConnector } from '../../../src/connectors/scim/scim-connector';
import type { ScimConnectorSettings } from '../../../src/connectors/scim/scim-settings';
import { SCIM, startServiceBench, type ServiceBench } from '../../support/service-bench';

/**
 * A kill -9 between a revoke's read before and its write (test/e2e/local-host-restart): the
 * read before is in the orchestration's history, made by the worker that was killed; the
 * write and its read back are made by a worker started since, whose SCIM connector has not
 * yet seen the members filter show anyone. The read before saw the filter name the group for
 * this very account (the filter's positive control): the read back believes the filter's
 * "not a member" as that worker did. Where the read before had no such evidence, the read back
 * still says it could not tell (DESIGN invariant 11).
 *
 * The restart is made deterministic: the service's registry answers with the worker that is
 * killed until the step's first membership read is made, then with a new connector of the
 * same settings (what a restarted process builds). Judged by the sandbox's truth.
 */
let bench: ServiceBench | undefined;
const restarted: ScimConnector[] = [];
afterEach(async () => {
  await Promise.all(restarted.splice(0).map((connector) => connector.close()));
  await bench?.close();
  bench = undefined;
});

/** From the first membership read on, the registry's SCIM connector is a new one. */
function restartAfterFirstMembershipRead(service: ServiceBench): ScimConnector {
  const registry = service.runtime.services.registry;
  const killed = registry.get(SCIM)!;
  const settings = registry.settings(SCIM) as ScimConnectorSettings;
  const started = new ScimConnector(settings, { secrets: service.secrets });
  restarted.push(started);
  let current: Connector = killed;
  const handOver: Connector = new Proxy(killed, {
    get(_target, property) {
      const worker = current;
      if (property === 'readMemberships' && worker === killed) {
        return async (...args: Parameters<Connector['readMemberships']>) => {
          const read = await killed.readMemberships(...args);
          current = started;
          return read;
        };
      }
      const value = Reflect.get(worker, property, worker) as unknown;
      if (typeof value !== 'function') return value;
      return (value as (...args: unknown[]) => unknown).bind(worker);
    },
  });
  const get = registry.get.bind(registry);
  registry.get = (name) => (name === SCIM ? handOver : get(name));
  return started;
}

async function revokeAcrossARestart(accountId: string, memberBefore: boolean) {
  bench = await startServiceBench();
  const { scim } = bench.sandboxes;
  scim.seedUsers([{ userName: accountId }]);
  const [group] = scim.seedGroups([
    {
      displayName: 'Sales Team',
      members: memberBefore ? ['colleague.one', accountId] : ['colleague.one'],
    },
  ]);
  scim.clearTruthLog();
  const started = restartAfterFirstMembershipRead(bench);
  const report = await bench.run({
    requestId: `restart-${accountId}`,
    connector: SCIM,
    account: { accountId },
    actions: [{ type: 'revoke', groups: ['Sales Team'] }],
  });
  // The new worker made the reads after the first: it decided how to check memberships.
  expect(started.membershipCheck).toEqual({ kind: 'filter', combine: true });
  return { scim, groupId: group!.id, report };
}

describe('a revoke whose worker restarts between its read before and its write', () => {
  it('is verified by the new worker on the evidence the read before had: succeeded, journaled once', async () => {
    const accountId = 'restart.member';
    const { scim, groupId, report } = await revokeAcrossARestart(accountId, true);

    expect(scim.groupIdsOf(accountId)).toEqual([]);
    expect(scim.truthLog()).toEqual([
      expect.objectContaining({ change: 'member removed', groupId, accountId }),
    ]);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    expect(report.steps[0]?.changes).toEqual([
      expect.objectContaining({ change: 'member removed', groupId }),
    ]);
    expect(await bench!.journal(SCIM, accountId)).toEqual([
      expect.objectContaining({ change: 'member removed', groupId }),
    ]);
  });

  it('still could not tell where the read before had no evidence for "not a member"', async () => {
    const accountId = 'restart.stranger';
    const { scim, groupId, report } = await revokeAcrossARestart(accountId, false);

    // Nothing changed on the target; neither worker's filter has shown anyone a member.
    expect(scim.groupIdsOf(accountId)).toEqual([]);
    expect(scim.truthLog()).toEqual([]);
    expect(report.status).toBe('failed');
    expect(report.steps[0]?.error).toMatchObject({
      code: 'MEMBERSHIP_READ_UNAVAILABLE',
      details: { untold: [{ id: groupId, name: 'Sales Team' }] },
    });
    expect(await bench!.journal(SCIM, accountId)).toEqual([]);
  });
});
