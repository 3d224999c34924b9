import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCacheSupported, createCompileCacheDir, flushCompileCache } from '../../src/lifecycle/compile-cache.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Files under `dir`, at any depth (Node keeps one subdirectory per Node version and flags). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(join(dir, name)).isFile());
}

describe('createCompileCacheDir', () => {
  it('makes a directory only this user can write, and removes it', () => {
    const dir = createCompileCacheDir({ enableCompileCache: () => undefined });
    expect(dir).toBeDefined();
    made.push(dir!.path);
    expect(statSync(dir!.path).mode & 0o777).toBe(0o700);
    dir!.removeSync();
    expect(existsSync(dir!.path)).toBe(false);
  });

  it('makes nothing on a Node without a compile cache', () => {
    expect(createCompileCacheDir({})).toBeUndefined();
    expect(compileCacheSupported({})).toBe(false);
  });
});

describe('the compile cache on this Node', () => {
  // Runs on every Node CI uses: Node 20 must leave the directory empty, Node 22.1+ must fill it
  // before the process exits, while it still waits for a call.
  it('is written by a process that flushes it while still running', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-compile-cache-test-'));
    made.push(dir);
    const script = [
      "import { flushCompileCache } from './dist/lifecycle/compile-cache.js';",
      "import { readdirSync } from 'node:fs';",
      'flushCompileCache();',
      `process.stdout.write(String(readdirSync(${JSON.stringify(dir)}, { recursive: true }).length > 0));`,
      // Still running: what was written is the flush's, not the exit's.
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..', '..'),
      encoding: 'utf8',
      env: { ...process.env, NODE_COMPILE_CACHE: dir },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(String(compileCacheSupported()));
    if (!compileCacheSupported()) expect(filesUnder(dir)).toEqual([]);
  });

  it('flushes nothing and throws nothing on a Node without one', () => {
    expect(() => flushCompileCache({})).not.toThrow();
  });
});
