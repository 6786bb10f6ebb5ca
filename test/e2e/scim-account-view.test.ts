import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * The account view on a target that reads memberships only among named groups (SCIM): the
 * direct memberships are read among the role catalogue's groups, and the view says so.
 * Judged by the sandbox's own group members.
 */
let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const path = '/api/connectors/scim-sandbox/accounts/ines.costa';

describe('the SCIM account view', () => {
  it('says that the catalogue must be imported before memberships can be shown', async () => {
    const created = await t.api('POST', '/api/requests', {
      connector: 'scim-sandbox',
      account: { accountId: 'ines.costa', displayName: 'Ines Costa' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales'] }],
    });
    expect((await t.finished(created.body.requestId as string)).status).toBe('succeeded');
    const view = await t.api('GET', path);
    expect(view.status, view.text).toBe(200);
    expect(view.body.directMemberships).toEqual([]);
    expect(view.body.notices.join(' ')).toContain('is empty: import it first');
  });

  it('lists the direct memberships among the catalogue groups, as the target holds them', async () => {
    const started = await t.api('POST', '/api/connectors/scim-sandbox/imports', {});
    await until('the import', async () => {
      const job = await t.api('GET', `/api/jobs/${started.body.jobId}`);
      return job.body.status === 'running' ? undefined : job.body;
    });
    const scim = t.host.sandboxes!.scim;
    const truth = ['Engineering', 'Sales', 'Finance', 'Support']
      .filter((name) =>
        ((scim.getGroup(name)?.members ?? []) as { value: string }[]).some(
          (m) => m.value === 'ines.costa',
        ),
      )
      .sort();
    expect(truth).toEqual(['Engineering', 'Sales']);
    const view = await t.api('GET', path);
    expect(
      view.body.directMemberships.map((g: { displayName: string }) => g.displayName).sort(),
    ).toEqual(truth);
    expect(view.body.notices.join(' ')).toMatch(/read among the role catalogue's \d+ groups/);
  });
});
