import { describe, expect, it } from 'vitest';
import { firstKeptDay } from '../../../src/domain/write-intent-retention';
import type { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { createActivityHandlers } from '../../../src/workflows/activities';
import { createCalls, SCIM, useServiceBench } from '../../support/service-bench';

/*
 * Write intents are kept under the day their request was received, from the orchestration's
 * input: a write run again after midnight (Durable runs an activity whose completion was not
 * recorded again, with the input of its history) claims under the same day and finds its
 * first run's intent, so the change it meets in place counts as its own.
 */
const bench = useServiceBench();

describe('write intents across a day boundary', () => {
  it('finds the claim of a create run again after midnight, and takes the account for its own', async () => {
    const clock = bench.clock as VirtualClock;
    clock.advanceTo(Date.parse('2026-11-23T23:59:58Z'));
    const report = await bench.run({
      requestId: 'day-edge-1',
      connector: SCIM,
      account: { accountId: 'day.edge', displayName: 'Day Edge' },
      actions: [{ type: 'create' }],
    });
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    // The create as its request sent it (with the first look, revision 5).
    const [create] = createCalls(bench, 'day-edge-1');
    expect(create?.input).toMatchObject({ intentDay: '2026-11-23' });

    // The same activity again, with the input of its history, the next day.
    clock.advanceBy(60_000);
    expect(new Date(clock.now()).toISOString().slice(0, 10)).toBe('2026-11-24');
    const handlers = createActivityHandlers(() => Promise.resolve(bench.runtime.services));
    // The purge of that night keeps the day (45 days are kept).
    await bench.runtime.services.intents.purge(firstKeptDay(clock.now(), 45));
    const again = await handlers.createAccount(create!.input as never);
    expect(again).toMatchObject({ ok: true, value: { outcome: 'adopted', maybeOurs: true } });
    // Another request's create meets the same account: not its own.
    const other = await handlers.createAccount({
      ...(create!.input as object),
      intentKey: 'another-request-create',
    } as never);
    expect(other).toMatchObject({ ok: true, value: { maybeOurs: false } });
    // Revision 4 (the request's own input): an account nothing shows to be this request's is
    // taken, not adopted; a request accepted before carries no `provesOwnCreate`, and its
    // create adopts by name as its history has it.
    expect(create?.input).toMatchObject({ provesOwnCreate: true });
    const asRevision3 = Object.fromEntries(
      Object.entries(create!.input as object).filter(([key]) => key !== 'provesOwnCreate'),
    );
    expect(
      await handlers.createAccount({ ...asRevision3, intentKey: 'revision-3-create' } as never),
    ).toMatchObject({ ok: true, value: { outcome: 'adopted', maybeOurs: false } });
    expect(
      await handlers.createAccount({
        ...(create!.input as object),
        intentKey: 'revision-4-create',
      } as never),
    ).toMatchObject({ ok: true, value: { outcome: 'taken', maybeOurs: false } });

    // The target holds one account, created once.
    const created = bench.sandboxes.scim
      .truthLog()
      .filter((event) => event.accountId === 'day.edge')
      .map((event) => event.change);
    expect(created).toEqual(['account created']);
  });
});
