import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { jobInstanceId } from '../../../src/workflows/names';
import { scimAdmin } from '../../e2e/drift-harness';
import { startConsoleTest, type ConsoleTest } from '../console-harness';
import { seedLargeStructure, seedNestedUser } from '../seed-directory';

// `npm run console:screenshots`: every page of the console with real data from the local
// host's sandboxes, at 1280 px (and the narrow ones at 400 px), into docs/console/.

const OUT = join(process.cwd(), 'docs', 'console');
let c: ConsoleTest;
let structureRoot: string;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  c = await startConsoleTest();
  const graph = c.t.host.sandboxes!.graph;
  seedNestedUser(graph, 'nina.nested@contoso.example');
  structureRoot = seedLargeStructure(graph).rootId;
  for (const connector of ['scim-sandbox', 'graph-sandbox']) {
    const job = await c.t.api('POST', `/api/connectors/${connector}/imports`, {});
    await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
  }
  const run = async (body: Record<string, unknown>) => {
    const answer = await c.t.api('POST', '/api/requests', body);
    return c.t.finished(answer.body.requestId);
  };
  await run({
    requestId: 'onboard-jane-doe',
    connector: 'scim-sandbox',
    account: { accountId: 'jane.doe', displayName: 'Jane Doe', email: 'jane.doe@contoso.example' },
    password: 'Initial-Passw0rd!',
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales', 'Finance'] }],
  });
  await run({
    connector: 'graph-sandbox',
    account: { accountId: 'adele.vance@contoso.example' },
    actions: [{ type: 'grant', groups: ['Support', 'Finance'] }, { type: 'lock' }],
  });
  graph.setReplicationDelay(40_000);
  await run({
    requestId: 'grant-late-replica',
    connector: 'graph-sandbox',
    account: { accountId: 'alex.wilber@contoso.example' },
    actions: [{ type: 'grant', groups: ['Marketing', 'Human Resources'] }, { type: 'unlock' }],
  });
  graph.setReplicationDelay(0);
  await run({
    connector: 'scim-sandbox',
    account: { accountId: 'jane.doe' },
    actions: [{ type: 'revoke', groups: ['Finance'] }, { type: 'lock' }],
  });
  // Drift: changes made by hand on the SCIM sandbox, found by a reconciliation.
  c.t.clock.advanceBy(5 * 60_000);
  const admin = scimAdmin(c.t);
  const groups = c.t.host.sandboxes!.scimGroups;
  await admin.addMember(groups['Finance']!, 'jane.doe');
  await admin.createUser('zoe.outsider');
  await admin.addMember(groups['Sales']!, 'zoe.outsider');
  const reconciliation = await c.t.api('POST', '/api/connectors/scim-sandbox/reconciliations');
  await c.t.host.driver.waitFor(jobInstanceId(reconciliation.body.jobId));
}, 120_000);
afterAll(async () => {
  await c?.close();
});

async function shoot(page: Page, name: string, path: string, ready: string, fullPage = true) {
  await page.goto(c.url(path));
  await page.waitForSelector(ready);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage });
}

it('captures every page', async () => {
  const wide = await c.open({ width: 1280 });
  await shoot(wide, 'requests', '/requests', 'table.requests');
  await shoot(wide, 'request-succeeded', '/requests/onboard-jane-doe', '.step-succeeded');
  await shoot(wide, 'request-mismatch', '/requests/grant-late-replica', '.mismatch');
  await wide.goto(c.url('/new?connector=graph-sandbox&accountId=megan.bowen@contoso.example'));
  await wide.getByLabel('Action to add').selectOption('grant');
  await wide.getByRole('button', { name: 'Add action' }).click();
  await wide.getByLabel('Engineering', { exact: true }).check();
  await wide.getByLabel('Action to add').selectOption('lock');
  await wide.getByRole('button', { name: 'Add action' }).click();
  await wide.screenshot({ path: join(OUT, 'new-request.png'), fullPage: true });
  await wide.getByRole('button', { name: 'Preview (writes nothing)' }).click();
  await wide.waitForSelector('section.plan');
  await wide.locator('section.plan').screenshot({ path: join(OUT, 'new-request-preview.png') });
  await shoot(
    wide,
    'account',
    '/connectors/graph-sandbox/accounts/nina.nested@contoso.example',
    'table.inherited',
  );
  await shoot(wide, 'structure', `/connectors/graph-sandbox/groups/${structureRoot}`, 'ul.tree');
  await shoot(wide, 'roles', '/roles/graph-sandbox', 'table.roles', false);
  await shoot(wide, 'journal', '/journal', 'table.journal');
  await shoot(wide, 'drift', '/drift?connector=scim-sandbox', 'table.drift');
  await wide.goto(c.url('/connectors/graph-sandbox'));
  await wide.getByLabel(/probe reads/).check();
  await wide.getByRole('button', { name: 'Check status' }).click();
  await wide.waitForSelector('.status-findings');
  await wide.screenshot({ path: join(OUT, 'connector-graph.png'), fullPage: true });
  await wide.goto(c.url('/connectors/scim-sandbox'));
  await wide.getByRole('button', { name: 'Run the compatibility test' }).click();
  await wide.waitForSelector('ol.checklist', { timeout: 60_000 });
  await wide.screenshot({ path: join(OUT, 'connector-scim-compatibility.png'), fullPage: true });

  const narrow = await c.open({ width: 400 });
  await shoot(narrow, 'narrow-request', '/requests/grant-late-replica', '.mismatch');
  await shoot(
    narrow,
    'narrow-account',
    '/connectors/graph-sandbox/accounts/nina.nested@contoso.example',
    'table.inherited',
  );
  const signedOut = await c.open({ key: false });
  await shoot(signedOut, 'sign-in', '/requests', '#api-key');
});
