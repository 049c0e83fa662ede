import { defineConfig } from 'vitest/config';

// Browser tests: the BUILT ui/dist served on 127.0.0.1, driven by playwright-core
// with the system Chromium, the IPC mocked by an injected script.
export default defineConfig({
  test: {
    include: ['tests/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
