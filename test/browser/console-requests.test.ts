import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobInstanceId, requestInstanceId } from '../../src/workflows/names';
import { startConsoleTest, type ConsoleTest } from './console-harness';
import { expectNoSecrets } from '../support/no-secrets';

// The request pages in Chromium against the local host and its sandboxes: the form, the
// timeline as it runs, and what the sandboxes' truth says was done.

let c: ConsoleTest;
beforeAll(async () => {
  c = await startConsoleTest();
  for (const connector of ['scim-sandbox', 'graph-sandbox']) {
    const job = await c.t.api('POST', `/api/connectors/${connector}/imports`, {});
    await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
  }
});
afterAll(async () => {
  await c?.close();
});

const PASSWORD = 'Browser-Passw0rd!';

async function pick(page: Page, action: number, groups: string[]) {
  const picker = page.locator('ol.actions > li').nth(action);
  for (const group of groups) await picker.getByLabel(group, { exact: true }).check();
}

async function addAction(page: Page, type: string) {
  await page.getByLabel('Action to add').selectOption(type);
  await page.getByRole('button', { name: 'Add action' }).click();
}

describe('the request pages', () => {
  it('submits a request from the form and follows its timeline, live, to "succeeded"', async () => {
    const scim = c.t.host.sandboxes!.scim;
    // Slow answers keep the request running long enough to be seen running.
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', latencyMs: 250 });
    const page = await c.open();
    await page.goto(c.url('/new'));
    await page.getByLabel('Connector').selectOption('scim-sandbox');
    await page.getByLabel('Account ID').fill('form.user');
    await page.getByLabel('Display name').fill('Form User');
    await page.getByLabel('Requested by').fill('helpdesk@contoso.example');
    await page.getByLabel('Correlation ID (ticket, approval)').fill('CHG-4711');
    await addAction(page, 'create');
    await page.getByLabel('Password (for create or set password)').fill(PASSWORD);
    await addAction(page, 'grant');
    await pick(page, 1, ['Engineering', 'Sales']);
    const seen: string[] = [];
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/api\/console\/requests\/[0-9a-f-]{36}$/);
    const requestId = page.url().split('/').at(-1)!;
    const status = page.locator('.summary dd').first();
    await expect
      .poll(
        async () => {
          const text = (await status.textContent()) ?? '';
          if (seen.at(-1) !== text) seen.push(text);
          return text;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toContain('succeeded');
    scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    // The page showed the request before it ended, then changed by itself.
    expect(seen.some((text) => /running|pending/.test(text))).toBe(true);
    const steps = page.locator('ol.timeline > li');
    await expect.poll(() => steps.count()).toBe(2);
    await expect.poll(() => steps.nth(0).textContent()).toContain('account created');
    const grant = (await steps.nth(1).textContent()) ?? '';
    expect(grant).toContain('member added: Engineering');
    expect(grant).toContain('member added: Sales');
    // The target's truth, not the page, says what was done.
    const user = scim.getUser('form.user')!;
    expect(user.displayName).toBe('Form User');
    const groups = scim.groupIdsOf('form.user').map((id) => scim.getGroup(id)!.displayName);
    expect(groups.sort()).toEqual(['Engineering', 'Sales']);
    await c.t.host.driver.verifyReplay(requestInstanceId(requestId));
    expect(await page.locator('dl.facts').textContent()).toContain('helpdesk@contoso.example');
    const journal = await c.t.api('GET', '/api/journal?correlationId=CHG-4711');
    expect(journal.body.entries).toHaveLength(3);
    expect(journal.body.entries[0].requestedBy).toBe('helpdesk@contoso.example');

    // The password was sent once and kept nowhere the browser shows or stores.
    expectNoSecrets(page.url(), { password: PASSWORD }, 'the URL');
    const kept = await page.evaluate(() => ({
      state: JSON.stringify(history.state),
      session: JSON.stringify({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
      html: document.documentElement.outerHTML,
    }));
    for (const [where, value] of Object.entries(kept)) {
      expectNoSecrets(value, { password: PASSWORD }, where);
    }
    await page.goBack();
    await page.waitForURL(/\/new$/);
    await expect.poll(() => page.locator('#new-password').count()).toBe(0);
    expect(await page.getByLabel('Account ID').inputValue()).toBe('');
    expect(c.problems).toEqual([]);
  });

  it('lists the request newest first, filtered by connector, account and status', async () => {
    const page = await c.open();
    await page.goto(c.url('/requests?connector=scim-sandbox&accountId=form.user&status=succeeded'));
    const rows = page.locator('table.requests tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('form.user');
    expect(await page.getByLabel('Status').inputValue()).toBe('succeeded');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=failed/);
    await expect.poll(() => page.getByText('No request matches.').count()).toBe(1);
  });

  it('shows the re-read notice of a Graph request whose changes show late', async () => {
    const graph = c.t.host.sandboxes!.graph;
    const created = await c.t.api('POST', '/api/requests', {
      connector: 'graph-sandbox',
      account: { accountId: 'late.reads@contoso.example', displayName: 'Late Reads' },
      actions: [{ type: 'create' }],
    });
    await c.t.finished(created.body.requestId);
    c.t.clock.advanceBy(60_000);
    graph.setReplicationDelay(10_000);
    const page = await c.open();
    await page.goto(c.url('/new?connector=graph-sandbox&accountId=late.reads@contoso.example'));
    await addAction(page, 'grant');
    await pick(page, 0, ['Finance']);
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/);
    const step = page.locator('ol.timeline > li').first();
    await expect
      .poll(() => step.textContent(), { timeout: 20_000 })
      .toMatch(/verified after \d+ reads/);
    graph.setReplicationDelay(0);
    expect(await step.textContent()).toContain('member added: Finance');
  });

  it('names the missing groups of a membership mismatch', async () => {
    const graph = c.t.host.sandboxes!.graph;
    graph.setReplicationDelay(40_000);
    const submitted = await c.t.api('POST', '/api/requests', {
      connector: 'graph-sandbox',
      account: { accountId: 'late.reads@contoso.example' },
      actions: [{ type: 'grant', groups: ['Support', 'Marketing'] }, { type: 'lock' }],
    });
    const page = await c.open();
    await page.goto(c.url(`/requests/${submitted.body.requestId}`));
    const failed = page.locator('ol.timeline > li').first();
    await expect
      .poll(() => failed.textContent(), { timeout: 20_000 })
      .toContain('MEMBERSHIP_MISMATCH');
    graph.setReplicationDelay(0);
    const missing = await failed.locator('.mismatch-list').first().locator('li').allTextContents();
    expect(missing.map((text) => text.replace(/ \(.*\)$/, '')).sort()).toEqual([
      'Marketing',
      'Support',
    ]);
    expect(await page.locator('ol.timeline > li').nth(1).textContent()).toContain('skipped');
    expect(await page.locator('.summary dd').first().textContent()).toContain('failed');
  });

  it('sends a draft again after its answer was lost: the same request, not a second one', async () => {
    const page = await c.open();
    await page.goto(c.url('/new?connector=scim-sandbox&accountId=lost.answer'));
    await addAction(page, 'create');
    // The first send reaches the service, which starts the request; its answer never comes
    // back to the browser (a gateway's timeout).
    const sent: string[] = [];
    await page.route(/\/api\/requests$/, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      sent.push(JSON.parse(route.request().postData() ?? '{}').requestId);
      if (sent.length > 1) return route.continue();
      await route.fetch();
      await route.abort('failed');
    });
    await page.getByRole('button', { name: 'Submit request' }).click();
    await expect.poll(() => page.locator('[role=alert]').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(page.url().split('/').at(-1)).toBe(sent[0]);
    await c.t.host.driver.waitFor(requestInstanceId(sent[0]!));
    const listed = await c.t.api(
      'GET',
      '/api/requests?connector=scim-sandbox&accountId=lost.answer',
    );
    expect(listed.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual([sent[0]]);
    const truth = c.t.host.sandboxes!.scim.truthLog();
    expect(truth.filter((e) => e.accountId === 'lost.answer').map((e) => e.change)).toEqual([
      'account created',
    ]);
  });

  it('lets no group the service may not write be picked for a grant', async () => {
    const page = await c.open();
    await page.goto(c.url('/new?connector=graph-sandbox'));
    await addAction(page, 'grant');
    const dynamic = page.getByLabel('All Staff (dynamic)', { exact: true });
    await expect.poll(() => dynamic.isDisabled()).toBe(true);
    expect(await page.locator('ol.actions').textContent()).toMatch(/not writable: .*dynamic/i);
    expect(await page.getByLabel('Engineering', { exact: true }).isDisabled()).toBe(false);
  });
});
