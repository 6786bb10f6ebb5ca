import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { defaultConsoleDirectory } from '../../src/api/console-assets';
import { silentLogger } from '../../src/domain/logger';
import { startLocalHost, type LocalHost } from '../../src/runtime/local-host/local-host';
import { jobInstanceId, requestInstanceId } from '../../src/workflows/names';
import { KEY_ITEM, launchChromium } from '../browser/chromium';
import { seedLargeStructure } from '../browser/seed-directory';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

/**
 * Issue 13 figures: the console's time to first render in Chromium against the local host
 * (real clock, sandboxes): from navigation start to the moment the page's data is in the
 * DOM, for the requests page (25 of REQUESTS requests) and the structure of 500 groups over
 * 32 levels; and the size of what a browser downloads, gzipped.
 */
export async function runConsoleBench(print: (line: string) => void): Promise<void> {
  const consoleDirectory = defaultConsoleDirectory();
  print(`console bundle (${consoleDirectory}): ${bundleSizes(consoleDirectory)}`);
  const host = await startLocalHost({
    env: { LOG_LEVEL: 'warn' },
    port: 0,
    clock: 'real',
    consoleDirectory,
    logger: silentLogger,
  });
  let browser: Browser | undefined;
  try {
    const root = seedLargeStructure(host.sandboxes!.graph).rootId;
    await submitRequests(host);
    browser = await launchChromium();
    for (const [name, path, selector] of [
      ['requests page', '/requests', 'table.requests tbody tr'],
      [
        '500-group structure page',
        `/connectors/graph-sandbox/groups/${root}`,
        'ul.tree .tree-name',
      ],
    ] as const) {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++)
        times.push(await firstRender(browser, host, path, selector));
      times.sort((a, b) => a - b);
      print(
        `${name}: first render median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms ` +
          `(min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}, ${RUNS} runs, fresh browser context each)`,
      );
    }
  } finally {
    await browser?.close();
    await host.close();
  }
}

function bundleSizes(directory: string): string {
  const assets = join(directory, 'assets');
  const files = readdirSync(assets).filter((name) => /\.(js|css)$/.test(name));
  const sizes = files.map((name) => {
    const body = readFileSync(join(assets, name));
    return { name, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  const total = sizes.reduce((sum, file) => sum + file.gzip, 0);
  return `${sizes.map((f) => `${f.name} ${(f.raw / 1024).toFixed(1)} KiB (${(f.gzip / 1024).toFixed(1)} KiB gzip)`).join(', ')}; ${(total / 1024).toFixed(1)} KiB gzip in all`;
}

async function submitRequests(host: LocalHost): Promise<void> {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${host.url}/api/${path}`, {
      method,
      headers: { 'x-functions-key': host.apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((response) => response.json() as Promise<Record<string, string>>);
  const job = await call('POST', 'connectors/scim-sandbox/imports', {});
  await host.driver.waitFor(jobInstanceId(job.jobId!));
  const ids = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      call('POST', 'requests', {
        connector: 'scim-sandbox',
        account: { accountId: `bench.console${i}`, displayName: `Bench ${i}` },
        actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
      }).then((answer) => answer.requestId!),
    ),
  );
  await Promise.all(ids.map((id) => host.driver.waitFor(requestInstanceId(id), 120_000)));
}

/** Milliseconds from navigation start until `selector` is in the DOM, as the page measures it. */
async function firstRender(
  browser: Browser,
  host: LocalHost,
  path: string,
  selector: string,
): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    // Page-side code as text: this file is compiled without the DOM's types.
    await context.addInitScript({
      content: `sessionStorage.setItem(${JSON.stringify(KEY_ITEM)}, ${JSON.stringify(host.apiKey)});
        const observer = new MutationObserver(() => {
          if (document.querySelector(${JSON.stringify(selector)}) === null) return;
          globalThis.rendered = performance.now();
          observer.disconnect();
        });
        observer.observe(document, { childList: true, subtree: true });`,
    });
    const page = await context.newPage();
    await page.goto(`${host.consoleUrl.replace(/\/$/, '')}${path}`);
    await page.waitForFunction(
      () => (globalThis as { rendered?: number }).rendered !== undefined,
      undefined,
      { timeout: 60_000 },
    );
    return await page.evaluate(() => (globalThis as { rendered?: number }).rendered ?? NaN);
  } finally {
    await context.close();
  }
}
