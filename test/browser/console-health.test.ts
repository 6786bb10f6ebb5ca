import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleTest, seriousViolations, type ConsoleTest } from './console-harness';

// The Health page in Chromium (issue 19): the service's parts, each connector's last known
// state and its numbers since the host started, against what the sandbox committed.

let c: ConsoleTest;
beforeAll(async () => {
  c = await startConsoleTest();
  for (const [accountId, group] of [
    ['health.one', 'Sales'],
    ['health.two', 'No Such Group'],
  ] as const) {
    const submitted = await c.t.api('POST', '/api/requests', {
      connector: 'scim-sandbox',
      account: { accountId },
      actions: [{ type: 'create' }, { type: 'grant', groups: [group] }],
    });
    await c.t.finished(submitted.body.requestId);
  }
  expect((await c.t.api('POST', '/api/connectors/scim-sandbox/status')).body.ok).toBe(true);
});
afterAll(async () => {
  await c?.close();
});

describe('the Health page', () => {
  it("shows the parts, the connector's last check and its numbers, accessibly", async () => {
    // The target's truth: both accounts were created, only the first one's grant was written.
    const users = c.t.host.sandboxes!.scim.listUsers().map((u) => u.userName);
    expect(users).toEqual(expect.arrayContaining(['health.one', 'health.two']));
    const page = await c.open();
    await page.goto(c.url('/health'));
    await page.getByRole('heading', { level: 1, name: 'Health' }).waitFor();
    const card = page.locator('li.card', { has: page.getByRole('link', { name: 'scim-sandbox' }) });
    await card.getByRole('region', { name: 'Metrics of scim-sandbox' }).waitFor();
    const fact = (name: string) =>
      card.locator('div', { has: page.locator('dt', { hasText: name }) }).locator('dd');
    expect(await fact('Last status check').innerText()).toMatch(/^✓ ok /);
    const row = (name: string) =>
      card.locator('tr', { has: page.locator('th', { hasText: name }) }).locator('td');
    expect(await row('Requests').innerText()).toBe('1 succeeded · 1 failed');
    expect(await row('Failed by code').innerText()).toMatch(/^GROUP_NOT_FOUND 1$/);
    expect(await page.getByRole('list', { name: 'Why' }).count()).toBe(0);
    const queue = page.locator('dl[aria-label="Bulk queue"]');
    const waiting = queue.locator('div', { has: page.locator('dt', { hasText: 'Waiting' }) });
    const backlog = await c.t.host.services.bulkQueue.backlog();
    expect(await waiting.locator('dd').textContent()).toBe(String(backlog.requests));
    expect(await seriousViolations(page)).toEqual([]);
    expect(c.problems).toEqual([]);
  });
});
