import { defineConfig } from 'vitest/config';

/** The plugin's own tests, run from this folder (`npm test -w @firstword/agents-plugin-tts`). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // 2-core CI: a few forks keep socket-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
