/**
 * The room benchmark's stack: the same `up`/`down` as `npm run stack` and the e2e harness, with
 * one production worker per strategy started after it (own AGENT_NAME, health port and log), so
 * each strategy has its own worker process and job processes; the Cartesia fake at the bench's
 * settings and the OpenAI fake serving the bench's token traces from its first request. The
 * caller (driver.ts) runs inside the namespace; its JSON lines are read as they come.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT, TSX_BIN } from '../../scripts/stack/layout.js';
import { inNamespace } from '../../scripts/stack/netns.js';
import { down, startExtraWorker, up } from '../../scripts/stack/stack.js';
import { type StackState, stackEnv } from '../../scripts/stack/state.js';
import type { RoomArgs } from './args.js';
import { STRATEGIES } from './plan.js';

export async function startBenchStack(args: RoomArgs, scriptFile: string, progress: (line: string) => void): Promise<StackState> {
  const cartesia = {
    firstByteDelayMs: args.firstByteMs,
    realTimeFactor: args.realTimeFactor,
    msPerChar: args.msPerCharEn,
    // A tone per text: the tagged square wave sits at Nyquist, which Opus removes.
    audio: 'audible',
  };
  const state = await up({
    owner: 'harness',
    tts: 'cartesia',
    worker: false,
    web: false,
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify(cartesia)] },
    progress,
  });
  try {
    for (const s of STRATEGIES) {
      const t0 = Date.now();
      // tts 'cartesia' gives both workers the CARTESIA_* of the fake; TTS_PROVIDER picks the plugin.
      await startExtraWorker(state, { name: s.worker, agentName: s.agentName, httpPort: s.httpPort, tts: 'cartesia', env: { TTS_PROVIDER: s.ttsProvider } });
      progress(`${s.worker} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } catch (error) {
    await down(state, progress);
    throw error;
  }
  return state;
}

export const stopBenchStack = (state: StackState, progress: (line: string) => void) => down(state, progress);

export type DriverEvent = { bench: string } & Record<string, unknown>;

/**
 * Runs a bench's caller script (`driver`, from the repository root; bench/room/driver.ts unless
 * given) inside the namespace; `onEvent` gets each `bench` line as it arrives. Resolves with the
 * exit code; past `timeoutMs` the driver's process group is killed.
 */
export function runDriver(
  state: StackState,
  planFile: string,
  timeoutMs: number,
  onEvent: (e: DriverEvent) => void,
  onLog: (line: string) => void,
  driver = join('bench', 'room', 'driver.ts'),
): Promise<number | null> {
  const [cmd, argv] = inNamespace(state.namespace, TSX_BIN, [join(REPO_ROOT, driver), planFile]);
  const child = spawn(cmd, argv, { cwd: REPO_ROOT, env: { ...process.env, ...stackEnv(state), RUST_LOG: 'warn' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // Gone.
    }
  };
  const timer = setTimeout(() => {
    onLog(`driver: timed out after ${timeoutMs} ms, killing it`);
    kill('SIGKILL');
  }, timeoutMs);
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{"bench"')) {
      try {
        onEvent(JSON.parse(line) as DriverEvent);
        return;
      } catch {
        // Not ours after all.
      }
    }
    if (/"level":[5-9]\d|error/i.test(line)) onLog(`driver: ${line.slice(0, 400)}`);
  });
  createInterface({ input: child.stderr }).on('line', (line) => onLog(`driver: ${line.slice(0, 400)}`));
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      kill('SIGKILL');
      resolve(code);
    });
  });
}

function logLines(state: StackState, worker: string, keep: (line: string) => boolean): Array<Record<string, unknown>> {
  let text = '';
  try {
    text = readFileSync(join(state.runDir, `${worker}.log`), 'utf8');
  } catch {
    return [];
  }
  const lines: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !keep(line)) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A partial line.
    }
  }
  return lines;
}

/** The worker's JSON log lines with `"msg":"turn latency"` (job processes log into the worker's stdout). */
export function turnLogLines(state: StackState, worker: string): Array<Record<string, unknown>> {
  return logLines(state, worker, (line) => line.includes('"turn latency"')).filter((v) => v.msg === 'turn latency');
}

export interface WorkerWarnings {
  /** The framework's own stall reports: "event loop blocked", "process not scheduled" (>= 100 ms each). */
  stalls: number;
  stallMs: number;
  /** Every warning or error, counted by its message's first words. */
  byMessage: Record<string, number>;
}

/** Warnings the worker logged since `sinceMs` (the turns, not start-up): how much the machine got in the way. */
export function workerWarnings(state: StackState, worker: string, sinceMs: number): WorkerWarnings {
  const out: WorkerWarnings = { stalls: 0, stallMs: 0, byMessage: {} };
  for (const v of logLines(state, worker, (line) => /"level":[4-6]\d/.test(line))) {
    if (typeof v.time === 'number' && v.time < sinceMs) continue;
    const msg = String(v.msg ?? '').split(/[;,(]/)[0]!.trim().slice(0, 60);
    out.byMessage[msg] = (out.byMessage[msg] ?? 0) + 1;
    if (/event loop blocked|process not scheduled/.test(msg) && typeof v.duration === 'number') {
      out.stalls++;
      out.stallMs += v.duration;
    }
  }
  return out;
}

export const workerLogFile = (state: StackState, worker: string): string => join(state.runDir, `${worker}.log`);
