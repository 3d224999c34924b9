/**
 * Every call's job process is a fresh Node process that compiles the same bundle again (about a
 * fifth of what importing it costs) and optimizes the same VAD graph again (half of loading it,
 * ../stt/silero-vad.ts). Job processes inherit the worker's environment: with `NODE_COMPILE_CACHE`
 * naming a directory, each reads what the first one compiled — V8's code on Node 22.1+, the VAD's
 * graph on every Node. When the operator names none, the worker makes a private one
 * (./worker-dir.ts).
 */
import nodeModule from 'node:module';

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
 * Node writes its compile cache when the process exits: a job process's only after its call.
 * Written once its code is loaded, the processes forked after it start from it.
 */
export function flushCompileCache(node: CompileCacheApi = api): void {
  node.flushCompileCache?.();
}
