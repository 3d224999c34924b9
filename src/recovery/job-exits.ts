/**
 * Tells the worker's main process when one of its job processes ends, with the job it was
 * running and how it ended (exit code or signal); and, from the same child process, when its job
 * asks for room for a successor (./hand-over-channel.ts).
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
import { handOverRequestOf } from './hand-over-channel.js';

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

/**
 * The production bundle (scripts/bundle.mjs) carries its own copy of the framework, whose pool
 * uses that copy's executor rather than the file: the bundle hands it over here.
 */
const BUNDLED_EXECUTOR = Symbol.for('firstword.bundledJobExecutor');

type ExecutorModule = { JobProcExecutor?: { prototype?: Partial<ExecutorPrototype> } };

/** The executor's prototype, or an error naming what is no longer where it was. */
export async function jobExecutorPrototype(): Promise<ExecutorPrototype> {
  const bundled = (globalThis as Record<symbol, ExecutorModule | undefined>)[BUNDLED_EXECUTOR];
  const url = bundled ? 'the bundled job_proc_executor.js' : jobExecutorModuleUrl();
  const module = bundled ?? ((await import(url)) as ExecutorModule);
  const prototype = module.JobProcExecutor?.prototype;
  if (typeof prototype?.launchJob !== 'function') throw new Error(`@livekit/agents changed: ${url} has no JobProcExecutor.prototype.launchJob`);
  return prototype as ExecutorPrototype;
}

/** An exit that was not the job ending itself: killed by a signal, or a non-zero code. */
export function classifyExit(code: number | null, signal: NodeJS.Signals | null): { unexpected: boolean; how: string } {
  if (signal) return { unexpected: true, how: `signal ${signal}` };
  return { unexpected: code !== 0, how: `exit code ${String(code)}` };
}

/** A job asking, through its process, for room for its successor (./hand-over-channel.ts). */
export interface HandOverRequest {
  jobId: string;
  /** Tells the job the worker has made room. */
  ready(): void;
}

interface Listeners {
  exits: Set<(exit: JobProcessExit) => void>;
  handOvers: Set<(request: HandOverRequest) => void>;
}

let installing: Promise<Listeners> | undefined;

async function install(): Promise<Listeners> {
  const prototype = await jobExecutorPrototype();
  const listeners: Listeners = { exits: new Set(), handOvers: new Set() };
  const launchJob = prototype.launchJob;
  prototype.launchJob = async function launchJobWatched(this: { proc?: ChildProcess }, info: JobInfo): Promise<void> {
    const child = this.proc;
    if (typeof child?.once !== 'function') throw new Error('@livekit/agents changed: a job executor without its child process in `proc`');
    // The same child carries the job's hand-over requests.
    const onMessage = (message: unknown) => {
      const request = handOverRequestOf(message);
      if (!request) return;
      const ready = () => void (child.connected && child.send(request.ready));
      for (const listener of listeners.handOvers) listener({ jobId: request.jobId, ready });
    };
    const report = (code: number | null, signal: NodeJS.Signals | null) => {
      child.off('message', onMessage);
      for (const listener of listeners.exits) listener({ info, pid: child.pid, code, signal });
    };
    child.on('message', onMessage);
    child.once('exit', report);
    try {
      await launchJob.call(this, info);
    } catch (error) {
      child.off('exit', report);
      child.off('message', onMessage);
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
  const { exits } = await installing;
  exits.add(onExit);
  return () => exits.delete(onExit);
}

/** Calls `onRequest` when a running job asks for room for its successor. Returns the stop. */
export async function watchHandOverRequests(onRequest: (request: HandOverRequest) => void): Promise<() => void> {
  installing ??= install();
  const { handOvers } = await installing;
  handOvers.add(onRequest);
  return () => handOvers.delete(onRequest);
}
