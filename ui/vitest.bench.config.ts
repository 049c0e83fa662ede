import { defineConfig } from 'vitest/config';

// The UI bench (npm run bench): My plugins with 200 cards beside 20, in the
// built ui/dist with the host mocked, through the browser tests' harness.
export default defineConfig({
  test: {
    include: ['tests/bench/**/*.bench.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
