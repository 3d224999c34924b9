import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    // A test that asserts nothing passes whatever the code does: every test must call expect.
    expect: { requireAssertions: true },
    hookTimeout: 20_000,
    // 2-core CI: a few forks keep socket-heavy suites from starving each other.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/e2e/**', 'test/package/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The real-room suites (a LiveKit stack, worker processes, Chromium) and the packed plugin
        // run after the unit suites, never beside them: timing-sensitive unit tests stay out of
        // their CPU load (a whole `npm test` takes ~20 s longer this way).
        extends: true,
        test: {
          name: 'rooms',
          include: ['test/e2e/**/*.test.ts', 'test/package/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/e2e/two-workers.test.ts'],
          sequence: { groupOrder: 1 },
          // One room suite at a time: two side by side (two stacks, a browser) took 2 cores to a
          // load of 10-12, put Silero 5-13 s behind the caller, and failed a barge-in (the story
          // ended before the interruption was seen) and the page's timing (no first sound logged).
          maxWorkers: 1,
        },
      },
      {
        // Six live calls take ~1.6 of the 2 cores: beside another room suite they starved its
        // browser's audio (the STT fake heard an extra utterance). They run last, alone.
        extends: true,
        test: {
          name: 'crowd',
          include: ['test/e2e/two-workers.test.ts'],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
