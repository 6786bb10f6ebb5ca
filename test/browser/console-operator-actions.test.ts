import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobInstanceId } from '../../src/workflows/names';
import { scimAdmin } from '../e2e/drift-harness';
import { seriousViolations, startConsoleTest, type ConsoleTest } from './console-harness';

// Two operator actions in the console, in Chromium against the local host, judged by the SCIM
// sandbox's truth and the service's stores: linking an account ID after ACCOUNT_EXISTS, and
// ending a kept cut of the server's user groups attribute (refused until a run backs it).

const SCIM = 'scim-sandbox';
let c: ConsoleTest;
beforeAll(async () => {
  c = await startConsoleTest();
});
afterAll(async () => {
  await c?.close();
});

async function submit(body: Record<string, unknown>) {
  const answer = await c.t.api('POST', '/api/requests', { connector: SCIM, ...body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return c.t.finished(answer.body.requestId as string);
}

describe('a request refused with ACCOUNT_EXISTS, in the console', () => {
  it('offers to link the account ID to the account that holds it; a request then acts on that account', async () => {
    const scim = c.t.host.sandboxes!.scim;
    const accountId = 'console.rehire';
    expect((await submit({ account: { accountId }, actions: [{ type: 'create' }] })).status).toBe(
      'succeeded',
    );
    const admin = scimAdmin(c.t);
    await admin.deleteUser(scim.getUser(accountId)!.id as string);
    const newcomer = (await admin.createUser(accountId))!.id as string;
    const refused = await submit({ account: { accountId }, actions: [{ type: 'lock' }] });
    expect(refused.steps[0].error.code).toBe('ACCOUNT_EXISTS');

    const page = await c.open();
    await page.goto(c.url(`/requests/${encodeURIComponent(refused.requestId)}`));
    const panel = page.getByRole('region', { name: 'Link the account ID' });
    await panel.waitFor();
    expect(await panel.innerText()).toContain(newcomer);
    const button = panel.getByRole('button', { name: `Link to id ${newcomer}` });
    expect(await button.isDisabled()).toBe(true);
    await panel.getByLabel('Reason (kept with the link)').fill('HR-1234: rehired');
    await button.click();
    await panel.getByRole('status').waitFor();
    expect(await panel.getByRole('status').innerText()).toContain('send the request again');
    expect(await seriousViolations(page)).toEqual([]);

    const locked = await submit({ account: { accountId }, actions: [{ type: 'lock' }] });
    expect(locked.status).toBe('succeeded');
    expect(scim.getUser(newcomer)!.active).toBe(false);
    expect(c.problems).toEqual([]);
  });
});

describe("a SCIM connector's user groups attribute kept as cut, in the console", () => {
  it('shows the cut; its end is refused, with why, until a compatibility run found the attribute complete', async () => {
    const states = c.t.host.services.connectorStates;
    await states.recordUserGroups(SCIM, {
      verdict: 'cut',
      why: 'the attribute once left out group Lab',
      at: new Date(c.t.clock.now() - 60_000).toISOString(),
      by: 'connector',
    });
    const page = await c.open();
    await page.goto(c.url(`/connectors/${SCIM}`));
    const panel = page.getByRole('region', { name: 'User groups attribute' });
    await panel.getByText('Cut: its silence is not believed').waitFor();
    const reason = panel.getByLabel('Why the server is mended (kept with the end)');
    await reason.fill('vendor fix 4.2');
    await panel.getByRole('button', { name: 'End the cut' }).click();
    const refusal = panel.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.innerText()).toContain('no compatibility run has told');
    expect((await states.readUserGroups(SCIM))?.verdict).toBe('cut');

    // The server mended (it now serves every user's groups): a compatibility run finds it complete.
    const scim = c.t.host.sandboxes!.scim;
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', userGroups: 'served' });
    const run = await c.t.api('POST', `/api/connectors/${SCIM}/compatibility-run`, {});
    expect(run.status).toBe(202);
    const ran = await c.t.host.driver.waitFor(jobInstanceId(run.body.jobId as string));
    expect(ran.output).toMatchObject({ result: { userGroups: { outcome: 'complete' } } });
    expect((await states.readUserGroups(SCIM))?.verdict).toBe('cut');
    await panel.getByRole('button', { name: 'End the cut' }).click();
    await panel.getByText('Complete', { exact: true }).waitFor();
    expect(await panel.innerText()).toContain('ended by');
    expect(await states.readUserGroups(SCIM)).toMatchObject({
      verdict: 'complete',
      by: 'operator',
    });
    expect(c.problems).toEqual([]);
  });
});
