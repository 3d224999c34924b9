import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './spawn-tsx.js';

/** Whether a fresh Node process has its fetch loaded, after `code` ran (the test runner has it already). */
function undiciLoadedAfter(code: string): boolean {
  const script = `${code}\nprocess.stdout.write(String(process.moduleLoadList.some((m) => m.includes('undici'))));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return run.stdout === 'true';
}

describe('preloadFetch', () => {
  it("loads Node's fetch, which a fresh process has not loaded", () => {
    expect(undiciLoadedAfter('')).toBe(false);
    expect(undiciLoadedAfter("const { preloadFetch } = await import('./src/lifecycle/preload.ts'); preloadFetch();")).toBe(true);
  });
});
