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
    // A poll ends as soon as it holds; its limit is for a loaded machine, where an answer of the
    // mock host, a render or a devtools round trip can take seconds (issue 32), not 1 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
