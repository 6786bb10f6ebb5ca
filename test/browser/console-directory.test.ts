import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleTest, type ConsoleTest } from './console-harness';
import { HOSTILE_NAME, seedLargeStructure, seedNestedUser } from './seed-directory';

// What the target's directory looks like, in Chromium: an account's effective inherited
// memberships through nesting with a cycle, and the structure of 500 groups over 32 levels.

let c: ConsoleTest;
let structureRoot: string;
beforeAll(async () => {
  c = await startConsoleTest();
  const graph = c.t.host.sandboxes!.graph;
  seedNestedUser(graph, 'nina.nested@contoso.example');
  structureRoot = seedLargeStructure(graph).rootId;
});
afterAll(async () => {
  await c?.close();
});

describe('the directory pages', () => {
  it('shows "Effective inherited memberships" with the path of each group and the cycle', async () => {
    const page = await c.open();
    await page.goto(c.url('/connectors/graph-sandbox/accounts/nina.nested@contoso.example'));
    const heading = page.getByRole('heading', {
      name: 'Effective inherited memberships',
      exact: true,
    });
    await heading.waitFor();
    expect(await heading.count()).toBe(1);
    const section = page.locator('section', { has: heading });
    const rows = await section
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('th')!.textContent.trim(),
          [...tr.querySelectorAll('ol.path li')].map((li) => li.textContent.trim()).join(' > '),
        ]),
      );
    expect(rows).toEqual([
      ['Department', 'Team Alpha > Department'],
      ['Division', 'Team Alpha > Department > Division'],
      ['Company', 'Team Alpha > Department > Division > Company'],
    ]);
    expect(await page.locator('ul.group-list').first().textContent()).toBe('Team Alpha');
    const notices = await page
      .getByRole('list', { name: 'Notices of the memberships read' })
      .textContent();
    expect(notices).toMatch(
      /cycle: groups nest in a cycle: Department .* -> Division .* -> Company .* -> Department/,
    );
    expect(await page.locator('dl.facts').textContent()).toContain('enabled');
    expect(c.problems).toEqual([]);
  });

  it('renders the 500 groups over 32 levels, collapsible, with the cycle where it closes', async () => {
    const page = await c.open();
    await page.goto(c.url(`/connectors/graph-sandbox/groups/${structureRoot}`));
    await page.getByText('500 group(s) over 32 level(s) below the root').waitFor();
    const tree = page.getByRole('list', { name: 'Groups nested in All Departments' });
    expect(await tree.locator('.tree-name').count()).toBe(500);
    const named = (name: string) => tree.locator('.tree-name').getByText(name, { exact: true });
    // Two levels open at first; the rest opens on demand.
    expect(await named('Level 32 unit').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Expand all' }).click();
    await expect.poll(() => named('Level 32 unit').isVisible()).toBe(true);
    const deepest = named('Level 32 unit').locator('xpath=ancestor::li[1]');
    expect(await deepest.textContent()).toContain(
      'also contains All Departments, which contains it: a cycle',
    );
    // Each group shows its direct members, as many as the directory holds.
    const graph = c.t.host.sandboxes!.graph;
    const root = tree.locator('.tree-label').first();
    expect(await root.textContent()).toContain(
      ` · ${graph.directMemberIds(structureRoot).length} members`,
    );
    // Collapsing by keyboard: focus the root's summary, Enter closes it, Enter opens it.
    await page.getByRole('button', { name: 'Collapse all' }).click();
    await tree.locator('summary').first().focus();
    await page.keyboard.press('Enter');
    expect(await named('Level 1 unit').isVisible()).toBe(false);
    await page.keyboard.press('Enter');
    expect(await named('Level 1 unit').isVisible()).toBe(true);
  });

  it('shows a group named like markup as text, wherever it appears', async () => {
    const page = await c.open();
    await page.goto(c.url(`/connectors/graph-sandbox/groups/${structureRoot}`));
    await page.getByRole('button', { name: 'Expand all' }).click();
    const hostile = page.locator('.tree-name').getByText(HOSTILE_NAME, { exact: true });
    await expect.poll(() => hostile.count()).toBe(1);
    expect(await hostile.isVisible()).toBe(true);
    await page.goto(c.url(`/groups?connector=graph-sandbox&search=${encodeURIComponent('<img')}`));
    const found = page.getByRole('list', { name: 'Groups found' });
    await expect
      .poll(() => found.getByRole('link', { name: HOSTILE_NAME, exact: true }).count())
      .toBe(1);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => document.querySelectorAll('[onerror]').length)).toBe(0);
    expect(c.problems).toEqual([]);
  });

  it('fits a 400 px wide screen without scrolling sideways', async () => {
    const page = await c.open({ width: 400 });
    for (const path of [
      '/connectors/graph-sandbox/accounts/nina.nested@contoso.example',
      `/connectors/graph-sandbox/groups/${structureRoot}`,
    ]) {
      await page.goto(c.url(path));
      await page.locator('main h2, main ul.tree').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        400,
      );
    }
  });
});
