import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '../..');

/** tsx's loader by absolute URL, so the child may run from any cwd (e.g. an empty tmp dir). */
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface SpawnTsxOptions {
  cwd?: string;
  env?: Record<string, string>;
  stdio?: StdioOptions;
}

/** `node --import tsx <script>` as a single process: signals and IPC reach our code directly. */
export function spawnTsx(script: string, args: string[] = [], options: SpawnTsxOptions = {}): ChildProcess {
  return spawn(process.execPath, ['--import', TSX_LOADER, resolve(ROOT, script), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'],
  });
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Collects output and resolves on exit; SIGKILLs the child after `limitMs` so no await hangs. */
export function collectExit(child: ChildProcess, limitMs = 15_000): Promise<ExitResult> {
  return new Promise((resolvePromise, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}
