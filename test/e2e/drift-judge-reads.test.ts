import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  gist,
  importCatalogues,
  provisionDriftAccounts,
  reconcile,
  report,
  scimAdmin,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A reconciliation judges the open findings it loaded at its start: it reads none of them
 * again one by one, whether it confirms one again or closes it.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let gets = 0;

beforeAll(async () => {
  t = await startTestHost();
  await importCatalogues(t);
  await provisionDriftAccounts(t, SCIM);
  t.clock.advanceBy(5 * 60_000);
  const { drift } = t.host.services;
  const get = drift.get.bind(drift);
  drift.get = (connector, findingId) => {
    gets += 1;
    return get(connector, findingId);
  };
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('the drift judge on open findings', () => {
  it('confirms an open finding again, then closes it, without reading any finding on its own', async () => {
    const groups = t.host.sandboxes!.scimGroups;
    const admin = scimAdmin(t);
    await admin.addMember(groups['Finance']!, 'ada');
    expect((await reconcile(t, SCIM)).found.memberAddedOutside).toBe(1);
    const [found] = await report(t, SCIM, { status: 'open' });
    expect(gist(found!)).toEqual({
      type: 'memberAddedOutside',
      accountId: 'ada',
      groupName: 'Finance',
    });

    t.clock.advanceBy(60_000);
    gets = 0;
    const again = await reconcile(t, SCIM);
    expect(again.complete, JSON.stringify(again)).toBe(true);
    const [confirmed] = await report(t, SCIM, { status: 'open' });
    expect(confirmed?.findingId).toBe(found!.findingId);
    expect(confirmed!.lastConfirmed > found!.lastConfirmed).toBe(true);
    expect(gets).toBe(0);

    await admin.removeMember(groups['Finance']!, 'ada');
    t.clock.advanceBy(60_000);
    const closing = await reconcile(t, SCIM);
    expect(closing.closed, JSON.stringify(closing)).toBe(1);
    expect(await report(t, SCIM, { status: 'open' })).toEqual([]);
    expect(gets).toBe(0);
  }, 120_000);
});
