import { describe, expect, it } from 'vitest';
import { describeDuration } from '../../../src/domain/quarantine';
import { benchApi } from '../../support/api-calls';
import {
  atVirtualTime,
  firstResumeAt,
  truthCounts,
  until,
  untilHeldOrDone,
  untilQuarantined,
} from '../../support/quarantine-watch';
import { leaseCalls, SCIM, useServiceBench } from '../../support/service-bench';
import type { RequestReport } from '../../../src/domain/request-report';
import { requestInstanceId } from '../../../src/workflows/names';
import { expectNoSecrets } from '../../support/no-secrets';

/*
 * Issue 14, Quarantine: a SCIM server whose admin revokes the service's token mid-run. The
 * connector is quarantined at the first refusal, every request is held (none fails), a probe
 * checks the target at growing intervals, and once the token is valid again the probe
 * releases the connector and each request runs to its end exactly once: judged by the
 * sandbox's truth log, the journal and each request's report.
 */
const bench = useServiceBench();
const api = benchApi(bench);
const REQUESTS = 50;

describe('a SCIM connector whose token is revoked mid-run', () => {
  it('is quarantined, holds its 50 requests, and the probe releases them once the token works: each ends succeeded, once', async () => {
    const { scim, secrets } = bench.sandboxes;
    const token = secrets['scim-sandbox-token']!;
    const accounts = Array.from({ length: REQUESTS }, (_, n) => `held.scim.${n}`);
    const truthFrom = scim.truthLog().length;
    const ids = await Promise.all(
      accounts.map((accountId) =>
        bench.submit({
          connector: SCIM,
          account: { accountId, displayName: accountId },
          actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
        }),
      ),
    );
    // Mid-run: some requests done, some half done.
    await until('60 changes committed', () =>
      scim.truthLog().length - truthFrom >= 60 ? true : undefined,
    );
    scim.setAuth({ type: 'bearer', token: 'revoked-by-the-admin-0b9e' });

    const quarantine = await untilQuarantined(bench, SCIM);
    const held = await untilHeldOrDone(bench, ids);
    expect(held.length).toBeGreaterThan(0);
    expect(quarantine.reason.code).toBe('TARGET_AUTH_FAILED');

    const status = await api('connectorStatus', { name: SCIM });
    const shown = (status.jsonBody as { quarantine: Record<string, unknown> }).quarantine;
    expect(shown).toMatchObject({
      state: 'quarantined',
      since: quarantine.since,
      reason: { code: 'TARGET_AUTH_FAILED', message: expect.stringContaining(SCIM) },
      heldRequests: held.length,
      nextProbeAt: expect.any(String),
    });
    expect((shown.held as { requestId: string }[]).map((h) => h.requestId).sort()).toEqual(
      [...held].sort(),
    );
    expectNoSecrets(status.jsonBody, { token }, 'the status answer');

    // The admin restores the token two minutes (of the virtual clock) into the quarantine.
    const recovery = Date.parse(quarantine.since) + 2 * 60_000;
    const recoveredAt = await atVirtualTime(bench, recovery, () =>
      scim.setAuth({ type: 'bearer', token }),
    );
    const reports = await Promise.all(ids.map((id) => bench.finish(id, 120_000)));

    // None lost: every request ended succeeded, its steps as asked.
    expect(reports.filter((report) => report.status !== 'succeeded')).toEqual([]);
    // None twice: the target committed each change once, and the journal holds each once.
    const truth = scim.truthLog().slice(truthFrom);
    const counts = truthCounts(truth);
    expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);
    expect(counts.size).toBe(REQUESTS * 2);
    for (const accountId of accounts) {
      const journal = await bench.journal(SCIM, accountId);
      expect(journal.map((entry) => entry.change).sort()).toEqual([
        'account created',
        'member added',
      ]);
      expect(scim.groupIdsOf(accountId)).toEqual([bench.sandboxes.scimGroups['Sales']]);
    }
    // A held request says for how long, and why.
    const heldReport = reports.find((report) => report.requestId === held[0])!;
    expect(heldReport.hold).toBeUndefined();
    expect(heldReport.steps.flatMap((step) => step.notices).join('\n')).toMatch(
      /held .+ while connector "scim-sandbox" was quarantined \(TARGET_AUTH_FAILED since .+\); its probe found the target answering again/,
    );

    const resumed = firstResumeAt(bench, held);
    const after = await api('connectorStatus', { name: SCIM });
    expect((after.jsonBody as { quarantine: unknown }).quarantine).toMatchObject({
      state: 'active',
      releasedBy: 'probe',
      heldRequests: 0,
    });
    // Figures for the closing note (virtual time).
    const since = Date.parse(quarantine.since);
    process.stdout.write(
      `quarantine (SCIM, probe): ${held.length} of ${REQUESTS} held; target back at +` +
        `${describeDuration(recoveredAt - since)}, first held request resumed at +` +
        `${describeDuration(resumed - since)}, ${describeDuration(resumed - recoveredAt)} after ` +
        `the recovery; lost 0, doubled 0\n`,
    );
    expect(resumed).toBeGreaterThan(recoveredAt);
  }, 120_000);

  it('keeps the account lease of a request held mid-way: a second request for the account waits past its ten minutes, then writes after it', async () => {
    const { scim, secrets, scimGroups } = bench.sandboxes;
    const token = secrets['scim-sandbox-token']!;
    const accountId = 'lease.while.held';
    // Half a second per answer: the first request's grant is still on its way when the token goes.
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', latencyMs: 500 });
    const first = await bench.submit({
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });
    await until('the account created', () => scim.getUser(accountId));
    const second = await bench.submit({
      connector: SCIM,
      account: { accountId },
      actions: [{ type: 'grant', groups: ['Finance'] }],
    });
    await until('the second request waiting for the lease', () =>
      leasePolls(second).some((poll) => !poll.acquired) ? true : undefined,
    );
    scim.setAuth({ type: 'bearer', token: 'revoked-again-71d2' });
    scim.setQuirks({ lastLogonAttribute: 'lastLogin' });

    const quarantine = await untilQuarantined(bench, SCIM);
    await atVirtualTime(bench, Date.parse(quarantine.since) + 15 * 60_000, () =>
      scim.setAuth({ type: 'bearer', token }),
    );
    const [firstReport, secondReport] = [await bench.finish(first), await bench.finish(second)];

    expect([firstReport.status, secondReport.status]).toEqual(['succeeded', 'succeeded']);
    // The second request waited for the lease longer than its ten minutes: the holder was held.
    const refused = leasePolls(second).filter((poll) => !poll.acquired);
    expect(refused.at(-1)!.at - refused[0]!.at).toBeGreaterThan(10 * 60_000);
    expect(secondReport.steps[0]!.notices.join('\n')).toContain('was quarantined');
    // The first kept its lease while held: renewed beyond the usual five minutes.
    expect(leasePolls(first).some((poll) => poll.ttlMs > 5 * 60_000)).toBe(true);
    // And the writes did not interleave: the first request's grant, then the second's.
    const grants = scim
      .truthLog()
      .filter((event) => event.accountId === accountId && event.change === 'member added')
      .map((event) => event.groupId);
    expect(grants).toEqual([scimGroups['Sales'], scimGroups['Finance']]);
  }, 120_000);

  it('fails a request held longer than 24 hours with CONNECTOR_QUARANTINED, and writes nothing more of it', async () => {
    const { scim, secrets } = bench.sandboxes;
    const token = secrets['scim-sandbox-token']!;
    scim.setAuth({ type: 'bearer', token: 'revoked-for-a-day-c3f0' });
    const truthFrom = scim.truthLog().length;
    const request = (accountId: string) =>
      bench.submit({
        connector: SCIM,
        account: { accountId },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
      });
    // One held after its create met the refusal (holding the lease), one held before it began.
    const ids = [await request('expiry.one')];
    const quarantine = await untilQuarantined(bench, SCIM);
    ids.push(await request('expiry.two'));
    // Replays were checked on shorter holds above: a day of holding is only waited for here.
    const reports = await Promise.all(
      ids.map(async (id) => {
        const state = await bench.runtime.driver.waitFor(requestInstanceId(id), 150_000);
        return state.output as RequestReport;
      }),
    );

    for (const report of reports) {
      expect(report.steps.map((step) => [step.state, step.error?.code])).toEqual([
        ['failed', 'CONNECTOR_QUARANTINED'],
        ['skipped', undefined],
      ]);
      const error = report.steps[0]!.error!;
      expect(error.message).toContain(`quarantined since ${quarantine.since} (TARGET_AUTH_FAILED`);
      expect(error.message).toContain('past the limit of 24 h (quarantine.maxHoldHours)');
      expect(error.message).toContain('POST /api/connectors/scim-sandbox/release');
      const heldMs = (error.details as { heldMs: number }).heldMs;
      expect(heldMs).toBeGreaterThanOrEqual(24 * 3_600_000);
      expect(heldMs).toBeLessThan(24 * 3_600_000 + 60_000);
      expect(await bench.journal(SCIM, report.accountId)).toEqual([]);
    }
    expect(scim.truthLog().length).toBe(truthFrom);
    const status = await api('connectorStatus', { name: SCIM });
    expect((status.jsonBody as { quarantine: unknown }).quarantine).toMatchObject({
      state: 'quarantined',
      heldRequests: 0,
    });

    scim.setAuth({ type: 'bearer', token });
    await api('releaseConnector', { name: SCIM });
  }, 180_000);
});

/** A request's lease acquisitions: when, with what lifetime, and whether they took it. */
function leasePolls(requestId: string): { at: number; ttlMs: number; acquired: boolean }[] {
  return leaseCalls(bench, requestId)
    .filter((call) => call.result !== undefined)
    .map((call) => ({
      at: call.scheduledAt,
      ttlMs: (call.input as { ttlMs: number }).ttlMs,
      acquired: (call.result as { value: { acquired: boolean } }).value.acquired,
    }));
}
