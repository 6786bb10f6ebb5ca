import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIFT_COLUMNS } from '../../src/api/drift-csv';
import { restoreRequestId } from '../../src/api/drift-restore-api';
import { jobInstanceId } from '../../src/workflows/names';
import { removeAfterFirstRead, scimAdmin } from '../e2e/drift-harness';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { seriousViolations, startConsoleTest, type ConsoleTest } from './console-harness';
import { parseCsv } from './csv';
import type { DriftFinding as DriftFindingRow } from '../../src/domain/drift-finding';

// Issue 18's Drift page in Chromium: a change made by hand on the SCIM sandbox, a
// reconciliation started from the page, the findings as the API has them, filtered, as CSV,
// and one restored from the page: the sandbox holds the assigned state again.

const SCIM = 'scim-sandbox';
let c: ConsoleTest;
let storage: TestStorage;
beforeAll(async () => {
  storage = await startTestStorage();
  c = await startConsoleTest({ storage: storage.connection });
  const job = await c.t.api('POST', `/api/connectors/${SCIM}/imports`, {});
  await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
  const submitted = await c.t.api('POST', '/api/requests', {
    connector: SCIM,
    account: { accountId: 'ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
  });
  await c.t.finished(submitted.body.requestId);
  // Past the settle window: ada's request is history, not in flight.
  c.t.clock.advanceBy(5 * 60_000);
  const groups = c.t.host.sandboxes!.scimGroups;
  const admin = scimAdmin(c.t);
  await admin.addMember(groups['Finance']!, 'ada');
  await admin.createUser('zoe.outsider');
  await admin.addMember(groups['Sales']!, 'zoe.outsider');
});
afterAll(async () => {
  await c?.close();
  await storage?.close();
});

describe('the Drift page', () => {
  it('reconciles, shows and filters the findings, downloads them as CSV and restores one', async () => {
    const page = await c.open();
    await page.goto(c.url(`/drift?connector=${SCIM}`));
    await page.getByText('No finding matches.').waitFor();
    await page.getByRole('button', { name: 'Reconcile now' }).click();
    await page.getByText('2 new finding(s), 0 closed.').waitFor({ timeout: 20_000 });
    const rows = page.locator('table.drift tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const api = await c.t.api('GET', `/api/connectors/${SCIM}/drift?status=open`);
    const findings = api.body.findings as { findingId: string; type: string }[];
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.finding))).toEqual(
      findings.map((f) => f.findingId),
    );
    const texts = await rows.allTextContents();
    expect(texts.find((t) => t.startsWith('Member added outside'))).toMatch(/adaFinance \(/);
    expect(texts.find((t) => t.startsWith('Unlinked member'))).toMatch(/zoe\.outsider.*Sales \(/);
    // The service does not own zoe.outsider: nothing to tick.
    expect(await rows.filter({ hasText: 'Unlinked member' }).getByRole('checkbox').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Type of finding').selectOption('memberAddedOutside');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/type=memberAddedOutside/);
    await expect.poll(() => rows.count()).toBe(1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^drift-scim-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = parseCsv(readFileSync(await download.path(), 'utf8'));
    expect(csv[0]).toEqual([...DRIFT_COLUMNS]);
    const added = findings.filter((f) => f.type === 'memberAddedOutside');
    expect(csv.slice(1).map((row) => row[0])).toEqual(added.map((f) => f.findingId));

    await page.getByRole('checkbox', { name: 'Restore Member added outside of ada' }).check();
    await page.getByRole('button', { name: 'Preview restore' }).click();
    const planned = page.locator('section[aria-label="Restore preview"] li');
    await planned.waitFor();
    expect(await planned.textContent()).toMatch(/^ada: .*would succeed.* member removed Finance$/);
    // A preview writes nothing: ada is still in Finance.
    const { scim, scimGroups } = c.t.host.sandboxes!;
    expect(scim.groupIdsOf('ada')).toContain(scimGroups['Finance']);
    await page.getByRole('button', { name: 'Restore 1 finding(s)' }).click();
    const link = page.locator('section[aria-label="Restores started"] a');
    await link.waitFor();
    const requestId = (await link.textContent())!;
    // Marked, as the finding read back says.
    const open = (await c.t.api('GET', `/api/connectors/${SCIM}/drift?status=open`)).body
      .findings as { type: string; restore?: { requestId: string } }[];
    const marked = open.find((f) => f.type === 'memberAddedOutside');
    expect(marked?.restore?.requestId).toBe(requestId);
    expect(
      await page.locator('section[aria-label="Restores started"] > ul > li').textContent(),
    ).toContain('findings marked with it');
    const report = await c.t.finished(requestId);
    expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
    // The target's truth: ada is in Engineering, as assigned, and no longer in Finance.
    expect(scim.groupIdsOf('ada')).toEqual([scimGroups['Engineering']]);
    const journal = await c.t.api('GET', `/api/journal?connector=${SCIM}&accountId=ada`);
    expect(
      (journal.body.entries as { change: string; groupName?: string; requestId: string }[]).filter(
        (e) => e.requestId === requestId,
      ),
    ).toMatchObject([{ change: 'member removed', groupName: 'Finance' }]);
    expect(c.problems).toEqual([]);
  });

  it('shows a restore whose finding is not marked, with its notice, and who submitted the request on its page and in the journal', async () => {
    const { scim, scimGroups } = c.t.host.sandboxes!;
    await scimAdmin(c.t).addMember(scimGroups['Support']!, 'ada');
    c.t.clock.advanceBy(5 * 60_000);
    const page = await c.open();
    await page.goto(c.url(`/drift?connector=${SCIM}&type=memberAddedOutside&status=open`));
    await page.getByRole('button', { name: 'Reconcile now' }).click();
    await page.getByText('1 new finding(s)').waitFor({ timeout: 20_000 });
    const api = await c.t.api('GET', `/api/connectors/${SCIM}/drift?status=open`);
    const finding = (api.body.findings as { findingId: string; groupId?: string }[]).find(
      (f) => f.groupId === scimGroups['Support'],
    )!;
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('checkbox', { name: 'Restore Member added outside of ada' }).check();
    // The finding's row goes once the restore has read it: nothing is left to mark.
    const stop = removeAfterFirstRead(c.t, storage, finding.findingId);
    try {
      await page.getByRole('button', { name: 'Restore 1 finding(s)' }).click();
      await page.locator('section[aria-label="Restores started"] a').waitFor();
    } finally {
      stop();
    }
    const started = page.locator('section[aria-label="Restores started"] > ul > li');
    expect(await started.textContent()).toContain('findings not marked');
    const notice = page.getByRole('list', { name: 'Restore notice' });
    expect(await notice.textContent()).toContain(`"${finding.findingId}" (no longer stored)`);
    // The truth: no finding carries the mark, and the request still ran.
    expect(
      (await c.t.api('GET', `/api/connectors/${SCIM}/drift`)).body.findings.map(
        (f: { findingId: string }) => f.findingId,
      ),
    ).not.toContain(finding.findingId);
    const requestId = (await page
      .locator('section[aria-label="Restores started"] a')
      .textContent())!;
    await c.t.finished(requestId);
    expect(scim.groupIdsOf('ada')).not.toContain(scimGroups['Support']);
    expect(await seriousViolations(page)).toEqual([]);

    // Who submitted it: the API key, on the request's page and in the journal.
    await page.goto(c.url(`/requests/${requestId}`));
    const submitted = page.locator('dl.facts div', { hasText: 'Submitted by' });
    await submitted.waitFor();
    expect(await submitted.textContent()).toContain('local API key');
    await page.goto(c.url(`/journal?connector=${SCIM}&accountId=ada`));
    const row = page.locator('tbody tr', { hasText: requestId });
    await row.first().waitFor();
    expect(await row.first().textContent()).toContain('submitted by local API key');
    expect(c.problems).toEqual([]);
  });
  it('shows a restore that started for one account and could not start for another, side by side', async () => {
    const { scim, scimGroups } = c.t.host.sandboxes!;
    const bob = await c.t.api('POST', '/api/requests', {
      connector: SCIM,
      account: { accountId: 'bob', displayName: 'Bob' },
      actions: [{ type: 'create' }],
    });
    await c.t.finished(bob.body.requestId);
    c.t.clock.advanceBy(5 * 60_000);
    const admin = scimAdmin(c.t);
    await admin.addMember(scimGroups['Sales']!, 'ada');
    await admin.addMember(scimGroups['Finance']!, 'bob');
    const page = await c.open();
    await page.goto(c.url(`/drift?connector=${SCIM}&type=memberAddedOutside&status=open`));
    await page.getByRole('button', { name: 'Reconcile now' }).click();
    await page.getByText('2 new finding(s)').waitFor({ timeout: 20_000 });
    const api = await c.t.api('GET', `/api/connectors/${SCIM}/drift?status=open`);
    const bobs = (api.body.findings as DriftFindingRow[]).find((f) => f.accountId === 'bob')!;
    // Another request already holds the id bob's restore takes: it cannot start (409).
    const taken = await c.t.api('POST', '/api/requests', {
      requestId: restoreRequestId(
        SCIM,
        { accountId: 'bob', actions: [], findingIds: [bobs.findingId] },
        [bobs],
      ),
      connector: SCIM,
      account: { accountId: 'bob' },
      actions: [{ type: 'grant', groups: ['Support'] }],
    });
    await c.t.finished(taken.body.requestId);

    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('checkbox', { name: 'Restore Member added outside of ada' }).check();
    await page.getByRole('checkbox', { name: 'Restore Member added outside of bob' }).check();
    await page.getByRole('button', { name: 'Restore 2 finding(s)' }).click();
    await page.locator('section[aria-label="Restores started"] a').waitFor();
    const started = page.locator('section[aria-label="Restores started"] > ul > li');
    expect(await started.allTextContents()).toEqual([expect.stringMatching(/^ada: restore-/)]);
    const notStarted = page.getByRole('alert', { name: 'Restores not started' });
    expect(await notStarted.textContent()).toContain('1 account(s) not restored');
    expect(await notStarted.textContent()).toMatch(/bob: .*not started.*REQUEST_CONFLICT/);
    // The truth: ada's restore ran, bob's did not.
    const requestId = (await page
      .locator('section[aria-label="Restores started"] a')
      .textContent())!;
    await c.t.finished(requestId);
    expect(scim.groupIdsOf('ada')).not.toContain(scimGroups['Sales']);
    expect(scim.groupIdsOf('bob')).toContain(scimGroups['Finance']);
    expect(await seriousViolations(page)).toEqual([]);
    expect(c.problems).toEqual([]);
  });
});
