/**
 * Running a command inside a stack's namespace with the stack's variables: captured (the test
 * harness, bounded by a timeout) or with the caller's stdio (the CLI).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { inNamespace, listNamespaces } from './netns.js';
import { type StackState, stackEnv } from './state.js';

export interface ExecOptions {
  /** Over the caller's environment and the stack's variables. */
  env?: Record<string, string>;
  timeoutMs?: number;
  cwd?: string;
}

export interface ExecResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

function assertRunning(state: StackState): void {
  if (!listNamespaces().includes(state.namespace)) {
    throw new Error(`namespace ${state.namespace} does not exist (the stack is down)`);
  }
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // Already gone.
  }
}

export function execCapture(state: StackState, cmd: string, args: string[], options: ExecOptions = {}): Promise<ExecResult> {
  assertRunning(state);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const [ipCmd, ipArgs] = inNamespace(state.namespace, cmd, args);
  const started = Date.now();
  // Detached: its own process group, so a timeout stops the command and everything it started.
  const child = spawn(ipCmd, ipArgs, {
    cwd: options.cwd,
    env: { ...process.env, ...stackEnv(state), ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid, 'SIGTERM');
    setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
  }, timeoutMs);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A grandchild that outlived the command would keep the pipes open: never wait for it.
      killGroup(child.pid, 'SIGKILL');
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    };
    child.once('close', finish);
    child.once('exit', (code, signal) => setTimeout(() => finish(code, signal), 2000).unref());
    child.once('error', (error) => {
      stderr += `${error.message}\n`;
      finish(127, null);
    });
  });
}

/** The CLI's `exec`: stdio passed through, signals forwarded, the command's exit status returned. */
export function execInherit(state: StackState, command: string[]): Promise<number> {
  assertRunning(state);
  const [cmd, ...args] = command;
  if (!cmd) throw new Error('exec needs a command');
  const [ipCmd, ipArgs] = inNamespace(state.namespace, cmd, args);
  const child = spawn(ipCmd, ipArgs, { env: { ...process.env, ...stackEnv(state) }, stdio: 'inherit' });
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const);
  for (const [sig, handler] of handlers) process.on(sig, handler);
  return new Promise((resolve) => {
    child.once('error', () => resolve(127));
    child.once('exit', (code, signal) => {
      for (const [sig, handler] of handlers) process.off(sig, handler);
      // Like a shell: 128 + signal number when the command was killed.
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 1));
    });
  });
}
