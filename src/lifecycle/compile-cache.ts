import { mkdtempSync, rmSync } from 'node:fs';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What Node 22.1+ offers for keeping V8's compiled code on disk; Node 20 has neither. */
interface CompileCacheApi {
  enableCompileCache?: (dir?: string) => unknown;
  flushCompileCache?: () => void;
}

const api = nodeModule as unknown as CompileCacheApi;

/** Whether this Node keeps compiled code on disk when `NODE_COMPILE_CACHE` names a directory. */
export function compileCacheSupported(node: CompileCacheApi = api): boolean {
  return typeof node.enableCompileCache === 'function';
}

/**
 * Every call's job process is a fresh Node process that compiles the same bundle again (about a
 * fifth of what importing it costs). Job processes inherit the worker's environment: with
 * `NODE_COMPILE_CACHE` naming a directory, each reads the code the first one compiled. When the
 * operator names none, the worker makes a private one (only this user may write code its job
 * processes will run), to be removed when it exits.
 *
 * @returns the directory made, or undefined when this Node has no compile cache.
 */
export function createCompileCacheDir(node: CompileCacheApi = api): { path: string; removeSync(): void } | undefined {
  if (!compileCacheSupported(node)) return undefined;
  const path = mkdtempSync(join(tmpdir(), 'firstword-compile-cache-'));
  return { path, removeSync: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Node writes its compile cache when the process exits: a job process's only after its call.
 * Written once its code is loaded, the processes forked after it start from it.
 */
export function flushCompileCache(node: CompileCacheApi = api): void {
  node.flushCompileCache?.();
}
