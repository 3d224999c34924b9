import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // 2-core CI: a few forks keep socket-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
