import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobInstanceId } from '../../src/workflows/names';
import { startConsoleTest, type ConsoleTest } from './console-harness';
import { parseCsv } from './csv';
import { HOSTILE_NAME } from './seed-directory';

// The catalogue and the journal in Chromium: an import started from the page, watched to its
// end, and the journal's filter and CSV against what the API answers.

let c: ConsoleTest;
beforeAll(async () => {
  c = await startConsoleTest();
  const job = await c.t.api('POST', '/api/connectors/scim-sandbox/imports', {});
  await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
  for (const [accountId, groups] of [
    ['csv.one', ['Engineering', 'Sales']],
    ['csv.two', ['Finance']],
  ] as const) {
    const submitted = await c.t.api('POST', '/api/requests', {
      connector: 'scim-sandbox',
      account: { accountId, displayName: `CSV, "${accountId}"` },
      requestedBy: 'csv-test',
      actions: [{ type: 'create' }, { type: 'grant', groups }],
    });
    await c.t.finished(submitted.body.requestId);
  }
});
afterAll(async () => {
  await c?.close();
});

describe('the catalogue and journal pages', () => {
  it('imports from the page, shows the job running, then the new roles', async () => {
    const scim = c.t.host.sandboxes!.scim;
    scim.seedGroups([{ displayName: 'Payroll' }, { displayName: HOSTILE_NAME }]);
    // Slow answers keep the job running long enough to be watched.
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', latencyMs: 400 });
    const page = await c.open();
    await page.goto(c.url('/roles/scim-sandbox'));
    await page.locator('table.roles').waitFor();
    expect(await page.locator('table.roles tbody tr').count()).toBe(6);
    await page.getByLabel('Overwrite existing roles').check();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const progress = page.getByRole('progressbar', { name: 'Import SCIM groups progress' });
    await progress.waitFor({ timeout: 10_000 });
    expect(await page.locator('.job').textContent()).toContain('running');
    await page.getByText(/\d+ groups read, 2 added/).waitFor({ timeout: 20_000 });
    scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    expect(await progress.count()).toBe(0);
    const rows = page.locator('table.roles tbody tr');
    await expect.poll(() => rows.count()).toBe(8);
    const fresh = await rows
      .filter({ has: page.locator('.badge-new') })
      .locator('th')
      .allTextContents();
    expect(fresh.map((name) => name.replace(/\s*new$/, '')).sort()).toEqual(
      [HOSTILE_NAME, 'Payroll'].sort(),
    );
    // The job the page started is the one the service ran, with the option as chosen.
    const jobs = c.t.host.driver
      .snapshot()
      .map((instance) => instance.instanceId)
      .filter((id) => id.startsWith('job-'));
    const last = await c.t.api('GET', `/api/jobs/${jobs.at(-1)!.slice('job-'.length)}`);
    expect(last.body).toMatchObject({ status: 'succeeded', overwriteExisting: true });
    expect(c.problems).toEqual([]);
  });

  it('filters the journal as the API does, and downloads the same entries as CSV', async () => {
    const page = await c.open();
    await page.goto(c.url('/journal'));
    await page.getByLabel('Connector').selectOption('scim-sandbox');
    await page.getByLabel('Account ID').fill('csv.one');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/connector=scim-sandbox&accountId=csv\.one/);
    const api = await c.t.api('GET', '/api/journal?connector=scim-sandbox&accountId=csv.one');
    const expected = api.body.entries as { change: string; groupName?: string; key: string }[];
    expect(expected).toHaveLength(3);
    const rows = page.locator('table.journal tbody tr');
    await expect.poll(() => rows.count()).toBe(expected.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td')]
          .slice(3, 5)
          .map((td) => td.textContent)
          .join(':'),
      ),
    );
    expect(shown).toEqual(expected.map((e) => `${e.change}:${e.groupName ?? ''}`));

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^journal-scim-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = parseCsv(readFileSync(await download.path(), 'utf8'));
    expect(csv[0]).toEqual([
      'at',
      'connector',
      'accountId',
      'change',
      'groupName',
      'groupId',
      'requestId',
      'step',
      'requestedBy',
      'reason',
      'correlationId',
      'key',
      'submittedBy',
    ]);
    const column = (name: string) => csv[0]!.indexOf(name);
    expect(csv.slice(1).map((row) => row[column('key')])).toEqual(expected.map((e) => e.key));
    expect(csv.slice(1).map((row) => row[column('requestedBy')])).toEqual(
      expected.map(() => 'csv-test'),
    );
    expect(csv.slice(1).every((row) => row[column('accountId')] === 'csv.one')).toBe(true);
    // Who the service saw submit them: the console's caller, signed in with the API key.
    expect(csv.slice(1).every((row) => row[column('submittedBy')] === 'local API key')).toBe(true);
    // The page says what the service put in the file (its x-csv-rows header).
    await page.getByText(`${expected.length} entries downloaded.`).waitFor();

    // Unfiltered, the CSV holds every entry the API pages through.
    await page.goto(c.url('/journal'));
    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const everything = await c.t.api('GET', '/api/journal?limit=1000');
    expect(parseCsv(readFileSync(await all.path(), 'utf8')).length - 1).toBe(
      everything.body.entries.length,
    );
    expect(c.problems).toEqual([]);
  });

  it('runs the compatibility test from the page: six points with evidence, as the API keeps it', async () => {
    const page = await c.open();
    await page.goto(c.url('/connectors/scim-sandbox'));
    await page.getByText('No compatibility run is kept for this connector yet.').waitFor();
    await page.getByRole('button', { name: 'Run the compatibility test' }).click();
    const points = page.locator('ol.checklist > li');
    await expect.poll(() => points.count(), { timeout: 30_000 }).toBe(6);
    const kept = await c.t.api('GET', '/api/connectors/scim-sandbox/compatibility-run');
    expect(kept.status).toBe(200);
    const shown = await points.evaluateAll((items) =>
      items.map((item) => item.querySelector('.checklist-head .badge')!.textContent.slice(2)),
    );
    expect(shown).toEqual(kept.body.points.map((point: { outcome: string }) => point.outcome));
    for (let i = 0; i < 6; i++) {
      expect(await points.nth(i).locator('details.evidence').count()).toBeGreaterThan(0);
    }
    const actions = page.getByRole('region', { name: 'What will work' }).locator('tbody tr');
    expect(await actions.count()).toBe(kept.body.actions.length);
    // The user's groups attribute, as the run found it, with the reads behind it.
    const userGroups = page.getByText("The user's groups attribute:");
    expect(await userGroups.textContent()).toContain(kept.body.userGroups.note);
    expect(c.problems).toEqual([]);
  });
});
