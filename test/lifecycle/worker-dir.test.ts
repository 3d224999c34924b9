import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './spawn-tsx.js';

/** Runs shareWorkerDir in a process of its own (it removes the directory at that process's exit). */
function inProcess(body: string): { stdout: string; stderr: string } {
  const script = [
    "const { shareWorkerDir } = await import('./src/lifecycle/worker-dir.ts');",
    "const { statSync, writeFileSync } = await import('node:fs');",
    body,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return { stdout: run.stdout, stderr: run.stderr };
}

describe('shareWorkerDir', () => {
  it('makes a directory only this user can use, hands it on, and removes it with what was written when the worker exits', () => {
    const { stdout, stderr } = inProcess(
      [
        "let shared;",
        "const path = shareWorkerDir('fw-worker-dir-test-', (p) => (shared = p), 'x');",
        "writeFileSync(path + '/written-by-a-job-process', 'x');",
        "process.stdout.write(JSON.stringify({ path, shared, mode: statSync(path).mode & 0o777 }));",
      ].join('\n'),
    );
    expect(stderr).toBe('');
    const { path, shared, mode } = JSON.parse(stdout) as { path: string; shared: string; mode: number };
    expect(shared).toBe(path);
    expect(mode).toBe(0o700);
    expect(existsSync(path)).toBe(false);
  });

  it('says what calls pay without it, and goes on, when it cannot be made', () => {
    const { stdout, stderr } = inProcess(
      [
        "process.env.TMPDIR = '/dev/null/not-a-dir';",
        "let shared = false;",
        "const path = shareWorkerDir('fw-worker-dir-test-', () => (shared = true), 'acknowledgements will be synthesized once per call');",
        "process.stdout.write(JSON.stringify({ path: path ?? null, shared }));",
      ].join('\n'),
    );
    expect(JSON.parse(stdout)).toEqual({ path: null, shared: false });
    expect(stderr).toMatch(/^acknowledgements will be synthesized once per call: no directory for it \(.+\)\n$/);
  });
});
