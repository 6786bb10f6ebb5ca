import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provision, reconcile, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A group created on the SCIM server after the last catalogue import, granted by name (the
 * service finds it on the target), then its membership removed by the server's administrator:
 * the reconciliation reads only the catalogue's groups, so it must not answer "complete, no
 * drift" while a membership the service assigned is gone.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost();
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('memberships the service assigned in groups the role catalogue does not know', () => {
  it('make the reconciliation say it could not tell, naming the groups, until an import brings them in', async () => {
    const admin = scimAdmin(t);
    const payroll = (await admin.call('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Payroll Admins',
    }))!.id as string;
    await provision(t, {
      connector: SCIM,
      account: { accountId: 'outside.ann', displayName: 'Ann' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Payroll Admins', 'Sales'] }],
    });
    await admin.removeMember(payroll, 'outside.ann');
    // The target's truth: the membership the service assigned is gone.
    const members = (t.host.sandboxes!.scim.getGroup(payroll) as { members?: unknown[] }).members;
    expect(members ?? []).toEqual([]);
    t.clock.advanceBy(5 * 60_000);

    const result = await reconcile(t, SCIM);
    expect(result.findings.memberRemovedOutside).toBe(0);
    expect(result.complete, JSON.stringify(result)).toBe(false);
    expect(result.incomplete).toEqual([
      expect.stringContaining(
        `1 membership(s) the service assigned in 1 group(s) the role catalogue does not know were not compared (${payroll})`,
      ),
    ]);

    // Imported, the group is managed: the removal is found, and the run is whole again.
    await runJob(t, `/api/connectors/${SCIM}/imports`, {});
    const again = await reconcile(t, SCIM);
    expect(again.complete, JSON.stringify(again)).toBe(true);
    expect(again.findings.memberRemovedOutside).toBe(1);
  }, 120_000);
});
