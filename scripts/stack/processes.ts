/**
 * Processes of a stack: started detached (their own process group, so a whole tree can be
 * signalled), logging to a file, recorded by PID plus kernel start time, so a PID reused by
 * an unrelated process after a crash is never signalled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { inNamespace } from './netns.js';

export interface ProcessRecord {
  name: string;
  pid: number;
  /** Field 22 of /proc/PID/stat (clock ticks since boot): identifies this process, not just its PID. */
  startTime: string;
  command: string[];
  logFile: string;
}

export interface Started {
  record: ProcessRecord;
  child: ChildProcess;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<string>;
  hasExited(): boolean;
}

export interface StartOptions {
  name: string;
  namespace: string;
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logFile: string;
}

/** Fields 3.. of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Exists and is not a zombie. */
export function running(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

export function startTimeOf(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** The very process that was recorded, still running (not a zombie, not a reused PID). */
export function isAlive(record: Pick<ProcessRecord, 'pid' | 'startTime'>): boolean {
  const fields = statFields(record.pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[19] === record.startTime;
}

export function startProcess(options: StartOptions): Started {
  const [cmd, args] = inNamespace(options.namespace, options.cmd, options.args);
  const log = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  if (child.pid === undefined) throw new Error(`could not start ${options.name} (${options.cmd})`);
  // The CLI exits after `up`; the stack must outlive it.
  child.unref();
  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve(signal ? `signal ${signal}` : `exit code ${code}`);
    });
    child.once('error', (error) => {
      done = true;
      resolve(`spawn error: ${error.message}`);
    });
  });
  const record: ProcessRecord = {
    name: options.name,
    pid: child.pid,
    startTime: startTimeOf(child.pid) ?? '',
    command: [options.cmd, ...options.args],
    logFile: options.logFile,
  };
  return { record, child, exited, hasExited: () => done };
}

/**
 * Whether any live member of process group `pgid` remains. Zombies do not count: processes of
 * a CLI stack are reparented to PID 1 once `up` exits, and a PID 1 that reaps lazily (this
 * machine's) would otherwise make every stop wait for its full grace period.
 */
export function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && fields[0] !== 'Z' && fields[2] === String(pgid)) return true;
  }
  return false;
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/**
 * SIGTERM to the leader only (a worker drains, tsx relays it to its child), then SIGKILL to
 * the whole group after `graceMs`: systemd's KillMode=mixed. Once the leader has exited, what
 * is left of its group is orphaned (a job process forked during a drain, say) and is killed at
 * once rather than waited for.
 */
export type StopOutcome = 'stopped' | 'stopped, leftover children killed' | 'killed' | 'gone';

export async function stopProcess(record: ProcessRecord, graceMs: number): Promise<StopOutcome> {
  if (!isAlive(record)) {
    // The leader died earlier; a reused PGID cannot be told apart from its group, so the
    // caller's namespace sweep takes care of leftovers.
    return 'gone';
  }
  signal(record.pid, 'SIGTERM');
  const leaderExited = await until(() => !isAlive(record), graceMs);
  const leftovers = groupAlive(record.pid);
  if (leftovers) {
    signal(-record.pid, 'SIGKILL');
    await until(() => !groupAlive(record.pid), 2000);
  }
  if (!leaderExited) return 'killed';
  return leftovers ? 'stopped, leftover children killed' : 'stopped';
}

/** Last `lines` lines of a log, for error messages. */
export function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
