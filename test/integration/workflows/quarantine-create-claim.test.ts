import { describe, expect, it } from 'vitest';
import { untilHeldOrDone, untilQuarantined } from '../../support/quarantine-watch';
import { SCIM, useServiceBench } from '../../support/service-bench';

/*
 * A create whose POST a gateway answers 503 without applying it, and whose read shows nothing,
 * is held while its connector is quarantined; an administrator makes the account by hand
 * meanwhile. Released, the create meets that account: it must not journal it as its own.
 */
const bench = useServiceBench({
  connectorSettings: (settings) =>
    settings.name === SCIM
      ? {
          ...settings,
          maxRetries: 1,
          quarantine: { ...settings.quarantine, failureThreshold: 1, firstProbeSeconds: 30 },
        }
      : settings,
});

describe('a create held by a quarantine after a 503 the read showed was not applied', () => {
  it('does not take the account an administrator made meanwhile for its own', async () => {
    const { scim } = bench.sandboxes;
    const accountId = 'held.create';
    scim.injectServerErrors(1000, 503, { writesOnly: true });
    const id = await bench.submit({
      connector: SCIM,
      account: { accountId, displayName: 'Held Create' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
    });
    await untilQuarantined(bench, SCIM);
    await untilHeldOrDone(bench, [id]);
    expect(scim.getUser(accountId)).toBeUndefined();
    // The administrator's account, then the target answers again.
    const [byHand] = scim.seedUsers([
      { userName: accountId, displayName: 'By Hand', active: false },
    ]);
    scim.clearInjected();
    const truthFrom = scim.truthLog().length;
    const report = await bench.finish(id, 120_000);

    expect(report.status).toBe('failed');
    expect(report.steps[0]!.error).toMatchObject({ code: 'ACCOUNT_EXISTS' });
    expect(report.steps[0]!.changes).toEqual([]);
    expect(report.steps[1]!.state).toBe('skipped');
    expect(scim.truthLog().slice(truthFrom)).toEqual([]);
    expect(scim.getUser(byHand!.id)).toMatchObject({ displayName: 'By Hand', active: false });
    expect(scim.groupIdsOf(byHand!.id)).toEqual([]);
  }, 150_000);
});
