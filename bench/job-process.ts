/**
 * A job process of the worker, forked for measuring exactly as @livekit/agents forks one (its
 * job_proc_lazy_main.js with the agent's file as argument, the worker's Node flags, the
 * framework's initialize message and pings), and what /proc says it costs. Shared by the
 * benchmarks that start job processes (./job-start.ts, ./idle-process.ts) or load the agent's
 * code (./import-cost.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { JOB_MALLOC_ARENAS, LOOP_BLOCK_WARN_MS } from '../src/config/defaults.js';

export const ROOT = resolve(import.meta.dirname, '..');
/** The framework's job process entry as a module of its own, and as the bundle's (scripts/bundle.mjs). */
export const FRAMEWORK_JOB_MAIN = join(dirname(createRequire(import.meta.url).resolve('@livekit/agents')), 'ipc', 'job_proc_lazy_main.js');
export const BUNDLED_JOB_MAIN = join(ROOT, 'dist', 'job_proc_lazy_main.js');
export const BUNDLED_AGENT = join(ROOT, 'dist', 'agent.js');
const CLOCK_TICKS_PER_S = 100;
/** The framework's ping to its job processes; one missing for 15 s makes a process exit as orphaned. */
const PING_EVERY_MS = 2500;

/** `npm start`'s Node flags: what the production worker's job processes inherit. */
export const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** `--name value` of this command line, or undefined. */
export const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};

/**
 * What prewarm's configuration needs (nothing is contacted before a call but the TTS: the
 * embedded voice, or a Resemble-protocol server at `resembleUrl`), with the settings the worker
 * hands its job processes (src/config/load.ts `shareJobProcessSettings`).
 */
export function jobEnvironment(resembleUrl?: string): NodeJS.ProcessEnv {
  const { ACK_AUDIO_DIR: _ownAcks, TTS_PROVIDER: _ownProvider, NODE_COMPILE_CACHE: _ownCache, ...inherited } = process.env;
  return {
    ...inherited,
    MALLOC_ARENA_MAX: String(JOB_MALLOC_ARENAS),
    LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: String(LOOP_BLOCK_WARN_MS),
    LIVEKIT_URL: 'ws://127.0.0.1:7880',
    LIVEKIT_API_KEY: 'devkey',
    LIVEKIT_API_SECRET: 'secret',
    OPENAI_API_KEY: 'test-key',
    NODE_ENV: 'production',
    ...(resembleUrl
      ? { TTS_PROVIDER: 'resemble', RESEMBLE_API_KEY: 'test-key', RESEMBLE_VOICE_UUID: 'voice-1', RESEMBLE_BASE_URL: resembleUrl }
      : { TTS_PROVIDER: 'local' }),
  };
}

const ticksOf = (stat: string): number => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

/** CPU (user + system, all threads) a process has used, in ms. */
export const cpuMs = (pid: number): number => (ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1000) / CLOCK_TICKS_PER_S;

/** CPU each of a process's threads has used, in ms, by thread id. */
export function threadCpuMs(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(tid, (ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) * 1000) / CLOCK_TICKS_PER_S);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/** A process's memory: RSS, its anonymous part, and PSS (its share of what it shares). */
export function memoryMb(pid: number): { rssMb: number; anonMb: number; pssMb: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb('Rss') / 1024), anonMb: Math.round(kb('Anonymous') / 1024), pssMb: Math.round(kb('Pss') / 1024) };
}

export interface JobProcessSpec {
  jobMain: string;
  agent: string;
  execArgv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The Node binary. @defaultValue this process's */
  node?: string;
}

export interface Mark {
  wallMs: number;
  cpuMs: number;
}

export interface StartedJobProcess {
  child: ChildProcess;
  /** "job process ready". */
  ready: Mark;
  /** "acknowledgements ready": the process is what a prewarmed spare is until a call comes. */
  acksReady: Mark;
  /** Acknowledgements the process read from the worker's store instead of synthesizing them. */
  acksFromStore: number;
  /** Kills it (SIGKILL: nothing of it is measured after). */
  kill(): void;
}

/**
 * Forks a job process, sends the framework's initialize message, pings it as the framework does,
 * and resolves once its acknowledgements are ready, with the wall time and CPU at each line.
 */
export async function startJobProcess(spec: JobProcessSpec, label: string): Promise<StartedJobProcess> {
  const started = performance.now();
  const child = fork(spec.jobMain, [spec.agent], { execArgv: [...spec.execArgv], execPath: spec.node ?? process.execPath, env: spec.env, cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const pinger = setInterval(() => child.connected && child.send({ case: 'pingRequest', value: { timestamp: Date.now() } }), PING_EVERY_MS);
  const kill = () => {
    clearInterval(pinger);
    child.kill('SIGKILL');
  };
  const mark = (): Mark => ({ wallMs: Math.round(performance.now() - started), cpuMs: cpuMs(child.pid!) });
  try {
    const lines = createInterface({ input: child.stdout! });
    const marks = new Promise<Omit<StartedJobProcess, 'child' | 'kill'>>((resolvePromise, reject) => {
      let ready: Mark | undefined;
      const warnings: string[] = [];
      lines.on('line', (line) => {
        if (line.includes('"level":40') || line.includes('"level":50')) warnings.push(line);
        if (line.includes('"job process ready"')) ready = mark();
        else if (line.includes('"acknowledgements ready"')) {
          const acksReady = mark();
          const { acks, fromStore } = JSON.parse(line) as { acks: number; fromStore: number };
          if (!ready) reject(new Error(`${label}: acknowledgements ready before the process was`));
          else if (acks === 0) reject(new Error(`${label}: no acknowledgement was prepared (${warnings.join('; ') || 'nothing logged'})`));
          else resolvePromise({ ready, acksReady, acksFromStore: fromStore });
        }
      });
      child.once('exit', (code) => reject(new Error(`${label} job process exited ${code} before its acknowledgements were ready`)));
    });
    child.send({ case: 'initializeRequest', value: { loggerOptions: { pretty: false, level: 'info' }, sessionEndTimeout: 60_000 } });
    return { child, kill, ...(await marks) };
  } catch (error) {
    kill();
    throw error;
  }
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
export const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
