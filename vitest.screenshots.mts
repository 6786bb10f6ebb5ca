import { defineConfig } from 'vitest/config';

// `npm run console:screenshots`: the console's pages in Chromium at 1280 and 400 px, written
// to docs/console/ for the README. Not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/browser/capture/*.capture.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
