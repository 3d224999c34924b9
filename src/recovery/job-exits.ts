/**
 * Tells the worker's main process when one of its job processes ends, with the job it was
 * running and how it ended (exit code or signal).
 *
 * Why this reaches into the framework: @livekit/agents 1.9 keeps its job processes in a private
 * pool (`AgentServer.#procPool`, an ECMAScript private field) and emits no event when one dies;
 * its public `activeJobs` only shows a job vanish, not how. The one place that holds both the job
 * and its child process is the pool's executor, `JobProcExecutor` (dist/ipc/job_proc_executor.js,
 * not in the package's exports): its public `launchJob(info)` hands the job to the process held in
 * its public `proc` field. So `launchJob` is wrapped, once, to watch that process's `exit`.
 * test/recovery/job-exits.test.ts forks a real executor and fails if any of this changes shape.
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the watcher needs of the framework's `RunningJobInfo`. */
export interface JobInfo {
  job: { id: string; metadata?: string; room?: { name?: string } };
  acceptArguments: { identity: string };
}

export interface JobProcessExit {
  info: JobInfo;
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface ExecutorPrototype {
  launchJob(this: { proc?: ChildProcess }, info: JobInfo): Promise<void>;
}

/** The file URL of the framework's executor module: the same module instance its pool uses. */
export function jobExecutorModuleUrl(): string {
  const entry = createRequire(import.meta.url).resolve('@livekit/agents');
  return pathToFileURL(join(dirname(entry), 'ipc', 'job_proc_executor.js')).href;
}

/** The executor's prototype, or an error naming what is no longer where it was. */
export async function jobExecutorPrototype(): Promise<ExecutorPrototype> {
  const url = jobExecutorModuleUrl();
  const module = (await import(url)) as { JobProcExecutor?: { prototype?: Partial<ExecutorPrototype> } };
  const prototype = module.JobProcExecutor?.prototype;
  if (typeof prototype?.launchJob !== 'function') throw new Error(`@livekit/agents changed: ${url} has no JobProcExecutor.prototype.launchJob`);
  return prototype as ExecutorPrototype;
}

/** An exit that was not the job ending itself: killed by a signal, or a non-zero code. */
export function classifyExit(code: number | null, signal: NodeJS.Signals | null): { unexpected: boolean; how: string } {
  if (signal) return { unexpected: true, how: `signal ${signal}` };
  return { unexpected: code !== 0, how: `exit code ${String(code)}` };
}

let installing: Promise<Set<(exit: JobProcessExit) => void>> | undefined;

async function install(): Promise<Set<(exit: JobProcessExit) => void>> {
  const prototype = await jobExecutorPrototype();
  const listeners = new Set<(exit: JobProcessExit) => void>();
  const launchJob = prototype.launchJob;
  prototype.launchJob = async function launchJobWatched(this: { proc?: ChildProcess }, info: JobInfo): Promise<void> {
    const child = this.proc;
    if (typeof child?.once !== 'function') throw new Error('@livekit/agents changed: a job executor without its child process in `proc`');
    const report = (code: number | null, signal: NodeJS.Signals | null) => {
      for (const listener of listeners) listener({ info, pid: child.pid, code, signal });
    };
    child.once('exit', report);
    try {
      await launchJob.call(this, info);
    } catch (error) {
      child.off('exit', report);
      throw error;
    }
  };
  return listeners;
}

/**
 * Calls `onExit` when a job process that was given a job exits, however it ends. Returns the
 * function that stops calling it. The wrapper is installed once per process.
 */
export async function watchJobProcessExits(onExit: (exit: JobProcessExit) => void): Promise<() => void> {
  installing ??= install();
  const listeners = await installing;
  listeners.add(onExit);
  return () => listeners.delete(onExit);
}
