import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './spawn-tsx.js';
import { compileCacheSupported, flushCompileCache } from '../../src/lifecycle/compile-cache.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('compileCacheSupported', () => {
  it('knows a Node without a compile cache', () => {
    expect(compileCacheSupported({})).toBe(false);
    expect(compileCacheSupported({ enableCompileCache: () => undefined })).toBe(true);
  });
});

/** How many files (Node makes its own subdirectory at once) a fresh process under `NODE_COMPILE_CACHE` has written there while still running. */
function writtenWhileRunning(flush: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), 'fw-compile-cache-test-'));
  made.push(dir);
  const script = [
    "const { flushCompileCache } = await import('./src/lifecycle/compile-cache.ts');",
    "const { readdirSync } = await import('node:fs');",
    flush ? 'flushCompileCache();' : '',
    `process.stdout.write(String(readdirSync(${JSON.stringify(dir)}, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length));`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: dir },
  });
  expect(run.stderr).toBe('');
  return Number(run.stdout);
}

describe('the compile cache on this Node', () => {
  // Runs on every Node CI uses: on Node 22.1+ a job process must write the cache while it waits
  // for its call (Node itself writes it only at exit); Node 20 writes nothing.
  it('is written while the process runs only when flushed', () => {
    expect(writtenWhileRunning(false)).toBe(0);
    if (compileCacheSupported()) expect(writtenWhileRunning(true)).toBeGreaterThan(0);
    else expect(writtenWhileRunning(true)).toBe(0);
  });

  it('flushes nothing and throws nothing on a Node without one', () => {
    expect(() => flushCompileCache({})).not.toThrow();
  });
});
