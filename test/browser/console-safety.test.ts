import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScaledClock } from '../../src/runtime/local-host/virtual-clock';
import { jobInstanceId, requestInstanceId } from '../../src/workflows/names';
import { until } from '../support/poll-until';
import { truthCounts } from '../support/quarantine-watch';
import { seriousViolations, startConsoleTest, type ConsoleTest } from './console-harness';
import { expectNoSecrets } from '../support/no-secrets';

// Operator safety in the console (issue 14), in Chromium against the local host: a preview
// that writes nothing and plans what the request then does, and a quarantined connector
// whose held requests an operator releases. Time passes by itself, 30 times sped up: a held
// request looks again every minute of that clock, two seconds of a test.

const SCIM = 'scim-sandbox';
let c: ConsoleTest<ScaledClock>;
beforeAll(async () => {
  c = await startConsoleTest({
    clock: new ScaledClock(30),
    // The probe waits an hour: only the operator's release ends the quarantine here.
    sandboxSettings: (settings) => ({
      ...settings,
      quarantine: { ...settings.quarantine, firstProbeSeconds: 3600 },
    }),
  });
  const job = await c.t.api('POST', `/api/connectors/${SCIM}/imports`, {});
  await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
});
afterAll(async () => {
  await c?.close();
});

async function addAction(page: Page, type: string, groups: string[] = []) {
  await page.getByLabel('Action to add').selectOption(type);
  await page.getByRole('button', { name: 'Add action' }).click();
  const action = page.locator('ol.actions > li').last();
  for (const group of groups) await action.getByLabel(group, { exact: true }).check();
}

/** The lines under each step: what it would change or changed, as a person reads them. */
async function stepChanges(page: Page, list: string): Promise<string[][]> {
  const steps = page.locator(`${list} > li`);
  const result: string[][] = [];
  for (let n = 0; n < (await steps.count()); n += 1) {
    result.push(await steps.nth(n).locator('ul.changes li').allTextContents());
  }
  return result;
}

describe('a preview in the console', () => {
  it('shows each step as it would end, writes nothing, and plans what the request then does', async () => {
    const scim = c.t.host.sandboxes!.scim;
    const truthFrom = scim.truthLog().length;
    const page = await c.open();
    await page.goto(c.url('/new'));
    await page.getByLabel('Connector').selectOption(SCIM);
    await page.getByLabel('Account ID').fill('preview.user');
    await page.getByLabel('Display name').fill('Preview User');
    await addAction(page, 'create');
    await page.getByLabel('Password (for create or set password)').fill('Preview-Passw0rd!');
    await addAction(page, 'grant', ['Engineering', 'Sales']);
    await addAction(page, 'lock');

    await page.getByRole('button', { name: 'Preview (writes nothing)' }).click();
    const plan = page.locator('section.plan');
    await plan.waitFor();
    expect(await plan.locator('h2').textContent()).toBe('Preview: nothing was written');
    expect(await plan.locator('p').first().textContent()).toContain('would succeed');
    const badges = await plan.locator('ol.timeline > li .step-head .badge').allTextContents();
    expect(badges.map((text) => text.trim())).toEqual([
      '✓ would succeed',
      '✓ would succeed',
      '✓ would succeed',
    ]);
    expect(
      await plan.getByRole('list', { name: 'What the preview rests on' }).textContent(),
    ).toMatch(/nothing was written/i);
    const planned = await stepChanges(page, 'section.plan ol.timeline');
    expect(await seriousViolations(page)).toEqual([]);
    // The target's truth: nothing happened.
    expect(scim.truthLog().length).toBe(truthFrom);
    expect(scim.getUser('preview.user')).toBeUndefined();

    // A change to the form drops the plan: it would plan something else.
    await page.getByLabel('Display name').fill('Preview User 2');
    await expect.poll(() => plan.count()).toBe(0);
    await page.getByLabel('Display name').fill('Preview User');

    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/);
    const requestId = page.url().split('/').at(-1)!;
    await c.t.host.driver.waitFor(requestInstanceId(requestId), 30_000);
    await expect
      .poll(() => page.locator('.summary dd').first().textContent(), { timeout: 10_000 })
      .toContain('succeeded');
    expect(await stepChanges(page, 'ol.timeline')).toEqual(planned);
    // ...and the target did what the plan said.
    const done = [...truthCounts(scim.truthLog().slice(truthFrom)).keys()];
    expect(done.filter((key) => key.startsWith('preview.user ')).length).toBe(
      planned.flat().length,
    );
    expect(scim.getUser('preview.user')?.active).toBe(false);
    expect(c.problems).toEqual([]);
  });
});

describe('a quarantined connector in the console', () => {
  it('shows why and what is held, and an operator releases it: each held request ends once', async () => {
    const { scim, secrets } = c.t.host.sandboxes!;
    const token = secrets['scim-sandbox-token']!;
    const truthFrom = scim.truthLog().length;
    scim.setAuth({ type: 'bearer', token: 'revoked-by-the-admin-c0de' });
    const accounts = ['held.one', 'held.two'];
    const ids: string[] = [];
    for (const accountId of accounts) {
      const answer = await c.t.api('POST', '/api/requests', {
        connector: SCIM,
        account: { accountId, displayName: accountId },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
      });
      ids.push(answer.body.requestId as string);
    }
    await until('both requests held', async () => {
      const state = await c.t.host.services.quarantine.get(SCIM);
      return state?.quarantined === true &&
        (await Promise.all(ids.map((id) => c.t.api('GET', `/api/requests/${id}`)))).every(
          (answer) => answer.body.hold !== undefined,
        )
        ? true
        : undefined;
    });

    const page = await c.open();
    await page.goto(c.url('/connectors'));
    const card = page.locator('li.card', { hasText: SCIM });
    await expect.poll(() => card.textContent()).toMatch(/quarantined\s*2 request\(s\) held/);

    await page.goto(c.url(`/connectors/${SCIM}`));
    const panel = page.getByRole('group', { name: 'Quarantine' });
    await panel.waitFor();
    const shown = (await panel.textContent()) ?? '';
    expect(shown).toContain('TARGET_AUTH_FAILED');
    expect(shown).toMatch(/Held requests\s*2/);
    expect(
      (
        await panel.getByRole('list', { name: 'Held requests' }).locator('a').allTextContents()
      ).sort(),
    ).toEqual([...ids].sort());
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(c.url(`/requests/${ids[0]}`));
    const hold = page.getByRole('status').filter({ hasText: 'Held since' });
    await hold.waitFor();
    expect(await hold.textContent()).toMatch(/is quarantined since .* \(TARGET_AUTH_FAILED /);
    expect(await page.locator('.summary dd').first().textContent()).toContain('held');

    // The admin puts the token back; the operator releases the connector from its page, and
    // the page says who did (here, the holder of the local host's API key).
    scim.setAuth({ type: 'bearer', token });
    await page.goto(c.url(`/connectors/${SCIM}`));
    await page.getByRole('button', { name: 'Release now' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="quarantine-heading"]').textContent())
      .toContain('released by local API key');
    for (const id of ids) await c.t.host.driver.waitFor(requestInstanceId(id), 60_000);
    for (const id of ids) {
      expect((await c.t.api('GET', `/api/requests/${id}`)).body.status).toBe('succeeded');
    }
    // The target's truth: each change once.
    const counts = truthCounts(scim.truthLog().slice(truthFrom));
    expect([...counts.values()]).toEqual([1, 1, 1, 1]);
    for (const accountId of accounts) expect(scim.getUser(accountId)).toBeDefined();
    const html = await page.content();
    expectNoSecrets(html, { 'bearer token': token }, 'the page');
    expect(c.problems).toEqual([]);
  }, 90_000);
});

describe('an incremental import from the console', () => {
  it('reads only the changes since the last import, says so, and the new group becomes a role', async () => {
    const graph = c.t.host.sandboxes!.graph;
    const first = await c.t.api('POST', '/api/connectors/graph-sandbox/imports', {});
    await c.t.host.driver.waitFor(jobInstanceId(first.body.jobId));
    graph.addGroup({ displayName: 'Incident Response', securityEnabled: true });

    const page = await c.open();
    await page.goto(c.url('/roles/graph-sandbox'));
    await page.getByLabel(/Only the changes since the last import/).check();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const summary = page.locator('section.import');
    await expect
      .poll(() => summary.textContent(), { timeout: 20_000 })
      .toContain('Incremental: only the changes since the last import. 1 groups read, 1 added');
    // The catalogue's own answer, not the page: the role is there.
    const roles = await c.t.api('GET', '/api/connectors/graph-sandbox/roles?search=Incident');
    expect(roles.body.roles.map((role: { displayName: string }) => role.displayName)).toEqual([
      'Incident Response',
    ]);
    expect(c.problems).toEqual([]);
  });
});
