import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DriverClock, VirtualClock } from '../../src/runtime/local-host/virtual-clock';
import type { LocalHostOptions } from '../../src/runtime/local-host/local-host';
import { startTestHost, type TestHost } from '../e2e/local-host-harness';
import { KEY_ITEM, launchChromium } from './chromium';

export interface ConsoleTest<C extends DriverClock = VirtualClock> {
  t: TestHost<C>;
  browser: Browser;
  /** The console's URL of a page path, e.g. `/requests`. */
  url(path?: string): string;
  /**
   * A new page at `width` x 900, signed in with the API key (or as a signed-in principal);
   * every page error, dialog and CSP violation is recorded in `problems`.
   */
  open(options?: { width?: number; signedIn?: string[]; key?: boolean }): Promise<Page>;
  /** What should never happen on a page: script errors, dialogs, CSP violations. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A local host with its sandboxes (a virtual clock, or the clock given: a held request needs
 * time that passes by itself), the console built from this source into a folder of its own,
 * and one Chromium for the test file.
 */
export async function startConsoleTest<C extends DriverClock = VirtualClock>(
  options: Pick<LocalHostOptions, 'signedInCallers' | 'sandboxSettings' | 'storage'> & {
    clock?: C;
  } = {},
): Promise<ConsoleTest<C>> {
  const consoleDirectory = await buildConsoleForTest();
  const t = await startTestHost<C>({}, { consoleDirectory, ...options });
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await t.close();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  const url = (path = '/requests') => `${t.host.url}/api/console${path}`;
  return {
    t,
    browser,
    url,
    problems,
    open: async ({ width = 1280, signedIn, key = signedIn === undefined } = {}) => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      contexts.push(context);
      if (key) {
        await context.addInitScript(([item, value]) => sessionStorage.setItem(item, value), [
          KEY_ITEM,
          t.host.apiKey,
        ] as const);
      }
      if (signedIn !== undefined) {
        await context.setExtraHTTPHeaders({ 'x-ms-client-principal': principal(signedIn) });
      }
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('console', (message) => {
        if (/Content.Security.Policy|Trusted Type/i.test(message.text())) {
          problems.push(`CSP: ${message.text()}`);
        }
      });
      return page;
    },
    close: async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await t.close();
      rmSync(consoleDirectory, { recursive: true, force: true });
    },
  };
}

/** The console built from this source into a fresh folder (esbuild: a fraction of a second). */
async function buildConsoleForTest(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'console-build-'));
  const builder = pathToFileURL(join(process.cwd(), 'scripts', 'build-console.mjs')).href;
  const { buildConsole } = (await import(
    builder
  )) as typeof import('../../scripts/build-console.mjs');
  await buildConsole({ outdir });
  return outdir;
}

/**
 * Moves the open console to another of its pages as a link would (no reload), and waits for
 * the page's heading and its first answer.
 */
export async function moveTo(page: Page, url: string): Promise<void> {
  await page.evaluate((path) => {
    history.pushState(null, '', path);
    dispatchEvent(new PopStateEvent('popstate'));
  }, url);
  await page.waitForFunction(
    (path) =>
      location.pathname + location.search === path &&
      document.querySelector('main h1') !== null &&
      !/Loading|Reading/.test(document.querySelector('main')?.textContent ?? ''),
    url.replace(/^https?:\/\/[^/]+/, ''),
  );
}

/** `x-ms-client-principal` as App Service Authentication sets it for a signed-in user. */
export function principal(roles: string[], name = 'ada@contoso.example'): string {
  return Buffer.from(
    JSON.stringify({
      auth_typ: 'aad',
      name_typ: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
      role_typ: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role',
      claims: [
        { typ: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', val: name },
        ...roles.map((val) => ({ typ: 'roles', val })),
      ],
    }),
  ).toString('base64');
}

const axeSource = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations of impact serious or critical on the page as it is now, each as
 * `rule: target` lines. axe is evaluated through the DevTools protocol, not added as a
 * script tag: the console's CSP rightly refuses inline scripts.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (await page.evaluate(() => !('axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.targets.join(', ')}`);
}
