import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobInstanceId } from '../../src/workflows/names';
import {
  moveTo,
  principal,
  seriousViolations,
  startConsoleTest,
  type ConsoleTest,
} from './console-harness';
import { seedNestedUser } from './seed-directory';
import { expectNoSecrets } from '../support/no-secrets';

// Who may use the console and how: the key typed once, signed-in principals with their app
// roles (enforced by the API), the page's security headers, keyboard use, and axe-core on
// every page at both widths.

let c: ConsoleTest;
let groupId: string;
let requestId: string;
beforeAll(async () => {
  c = await startConsoleTest({ signedInCallers: true });
  groupId = seedNestedUser(c.t.host.sandboxes!.graph, 'nina.nested@contoso.example').department.id;
  const job = await c.t.api('POST', '/api/connectors/scim-sandbox/imports', {});
  await c.t.host.driver.waitFor(jobInstanceId(job.body.jobId));
  const submitted = await c.t.api('POST', '/api/requests', {
    connector: 'scim-sandbox',
    account: { accountId: 'axe.user', displayName: 'Axe User' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
  });
  requestId = submitted.body.requestId;
  await c.t.finished(requestId);
});
afterAll(async () => {
  await c?.close();
});

const PAGES = () => [
  '/requests',
  `/requests/${requestId}`,
  '/new?connector=scim-sandbox',
  '/accounts',
  '/connectors/graph-sandbox/accounts/nina.nested@contoso.example',
  '/groups?connector=graph-sandbox&search=Dep',
  `/connectors/graph-sandbox/groups/${groupId}`,
  '/roles/scim-sandbox',
  '/journal',
  '/drift?connector=scim-sandbox&status=closed',
  '/connectors',
  '/connectors/scim-sandbox',
];

describe('signing in', () => {
  it('takes the key once, keeps it for the tab only, never in a URL, and signs out', async () => {
    const page = await c.open({ key: false });
    await page.goto(c.url('/journal'));
    await page.getByLabel('API key', { exact: true }).fill('not-the-key-not-the-key');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('The service did not accept this key.').waitFor();
    await page.getByLabel('API key', { exact: true }).fill(c.t.host.apiKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByRole('heading', { name: 'Journal' }).waitFor();
    expect(page.url()).toBe(c.url('/journal'));
    expect(await page.evaluate(() => ({ ...sessionStorage }))).toEqual({
      'provisioning-console.api-key': c.t.host.apiKey,
    });
    expect(await page.evaluate(() => ({ ...localStorage }))).toEqual({});
    await page.reload();
    await page.getByRole('heading', { name: 'Journal' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.evaluate(() => ({ ...sessionStorage }))).toEqual({});
  });
});

describe('app roles of signed-in principals, enforced by the API', () => {
  it('lets a Reader view but not submit: the API refuses, and nothing runs', async () => {
    const page = await c.open({ signedIn: ['Provisioning.Reader'] });
    await page.goto(c.url('/new?connector=scim-sandbox&accountId=reader.try'));
    await page.getByText('ada@contoso.example · Reader').waitFor();
    expect(await page.getByRole('button', { name: 'Submit request' }).isDisabled()).toBe(true);
    const before = c.t.host.driver.snapshot().length;
    const truth = c.t.host.sandboxes!.scim.truthLog().length;
    const answer = await page.evaluate(async () => {
      const response = await fetch('/api/signed-in/requests', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          connector: 'scim-sandbox',
          account: { accountId: 'reader.try' },
          actions: [{ type: 'create' }],
        }),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    });
    expect(answer).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN', object: 'Provisioning.Operator' } },
    });
    expect(c.t.host.driver.snapshot().length).toBe(before);
    expect(c.t.host.sandboxes!.scim.truthLog().length).toBe(truth);
    // The Reader reads what the key holder reads.
    await page.goto(c.url(`/requests/${requestId}`));
    await page.locator('.step-succeeded').first().waitFor();
    await page.goto(c.url('/roles/scim-sandbox'));
    expect(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);
  });

  it('lets an Operator submit from the form, and sends a stranger to sign in', async () => {
    const page = await c.open({ signedIn: ['Provisioning.Operator'] });
    await page.goto(c.url('/new?connector=scim-sandbox&accountId=operator.made'));
    await page.getByLabel('Action to add').selectOption('create');
    await page.getByRole('button', { name: 'Add action' }).click();
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/);
    await page.locator('.step-succeeded').waitFor({ timeout: 20_000 });
    expect(c.t.host.sandboxes!.scim.getUser('operator.made')).toBeDefined();

    const stranger = await c.open({ key: false });
    await stranger.setExtraHTTPHeaders({ 'x-ms-client-principal': principal([]) });
    await stranger.goto(c.url('/requests'));
    await stranger.getByLabel('API key', { exact: true }).waitFor();
    const anonymous = await c.open({ key: false });
    await anonymous.goto(c.url('/requests'));
    const signIn = anonymous.getByRole('link', { name: 'Sign in with your organisation account' });
    expect(await signIn.getAttribute('href')).toBe(
      `/.auth/login/aad?post_login_redirect_uri=${encodeURIComponent('/api/console/requests')}`,
    );
  });
});

describe('the page itself', () => {
  it('is served with a strict CSP, cached by content hash, and holds no key', async () => {
    const index = await fetch(c.url('/requests'));
    expect(index.headers.get('content-security-policy')).toMatch(
      /default-src 'none'; script-src 'self'; style-src 'self'.*frame-ancestors 'none'; require-trusted-types-for 'script'/,
    );
    expect(index.headers.get('cache-control')).toBe('no-store');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    const assets = [...html.matchAll(/(?:src|href)="(\/api\/console\/assets\/[^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(assets.length).toBe(3);
    for (const asset of assets) {
      const response = await fetch(`${c.t.host.url}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = await response.text();
      expectNoSecrets(body, { 'API key': c.t.host.apiKey }, 'a console file');
    }
    expect((await fetch(c.url('/assets/nope.js'))).status).toBe(404);
    // The API behind the console still wants the key.
    expect((await fetch(`${c.t.host.url}/api/requests`)).status).toBe(401);
  });

  it('works from the keyboard: skip link first, visible focus, every control labelled', async () => {
    const page = await c.open();
    await page.goto(c.url('/requests'));
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      const style = getComputedStyle(element);
      return {
        inMain: element.closest('main') !== null,
        outline: style.outlineStyle,
        width: style.outlineWidth,
      };
    });
    expect(focused.inMain).toBe(true);
    expect(focused.outline).not.toBe('none');
    expect(focused.width).not.toBe('0px');
    // Navigating by keyboard: a nav link followed with Enter opens its page.
    await page.getByRole('link', { name: 'Journal' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Journal' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  it('has no serious accessibility violation on any page, at 1280 and 400 px', async () => {
    for (const width of [1280, 400]) {
      const page = await c.open({ width });
      await page.goto(c.url('/requests'));
      for (const path of PAGES()) {
        await moveTo(page, c.url(path));
        const where = `${path} at ${width} px`;
        expect(await seriousViolations(page), where).toEqual([]);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, where).toBeLessThanOrEqual(width);
      }
    }
    const signInPage = await c.open({ key: false, width: 400 });
    await signInPage.goto(c.url('/requests'));
    await signInPage.getByLabel('API key', { exact: true }).waitFor();
    expect(await seriousViolations(signInPage)).toEqual([]);
    expect(c.problems).toEqual([]);
  });
});
