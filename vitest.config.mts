import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      'test/browser/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // One module graph per worker, not per file: loading azurite, durable-functions and the
    // SDKs again for each of ~100 files took more time than the tests. Tests keep their state
    // in their own servers and stores; a test that changes process-wide state puts it back.
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
