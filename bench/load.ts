/** Runs bench/load-process.ts in a fresh process and returns its figures. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadConfig, LoadResult } from './load-process.js';

const LOAD_SCRIPT = fileURLToPath(new URL('./load-process.ts', import.meta.url));

export type { LoadConfig, LoadResult };

export function runLoadInChild(config: LoadConfig, timeoutMs: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD_SCRIPT, [], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load test did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('message', (message: { type: 'result'; result: LoadResult } | { type: 'error'; message: string }) => {
      clearTimeout(timer);
      if (message.type === 'result') resolve(message.result);
      else reject(new Error(`load test failed: ${message.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`load process exited (${code}) without a result`));
    });
    child.send(config);
  });
}
