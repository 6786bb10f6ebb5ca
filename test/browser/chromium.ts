import { chromium, type Browser } from 'playwright-core';

// Chromium for the browser tests and the console benchmark: no DOM types here, so that the
// benchmark (compiled without them) can use it too.

/** Debian's Chromium (`.ci/run` installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The flags this machine needs: no sandbox as root, and none of Chromium's own background
 * connections (they are refused here and would only slow the browser down).
 */
const FLAGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the console keeps the key the user typed (src/console/session-store.ts). */
export const KEY_ITEM = 'provisioning-console.api-key';

/** Debian's Chromium, headless, with a fresh profile of its own (Playwright makes one per launch). */
export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  } catch (error) {
    throw new Error(
      `Chromium did not start from ${CHROMIUM} (.ci/run installs it with apt-get install chromium)`,
      { cause: error },
    );
  }
}
