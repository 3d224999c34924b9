/**
 * `npm run bench:capacity [-- --steps 1,2,4,6 --turns 3 --max-calls 6 --tts cartesia|local
 * --json FILE --max-minutes 20 --no-full-probe]`: how many calls one worker carries through a
 * real LiveKit SFU before its callers notice.
 *
 * The stack of `npm run stack` in its own network namespace (loopback and namespace addresses
 * only): livekit-server, Redis, the OpenAI fake, the Cartesia-protocol fake (audible tones) or
 * the local voice, and one production worker with AGENT_MAX_CALLS. Steps of concurrent calls,
 * each caller an rtc-node participant speaking real speech (bench/capacity/driver.ts), rising
 * until the first-sound p90 or the replies' continuity degrades against the 1-call step. Per step:
 * the worker's process group's CPU and memory from /proc (callers excluded), what its load
 * function reports, and at the end whether LiveKit stops dispatching to it once it says it is full.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { down, up } from '../../scripts/stack/stack.js';
import type { StackState } from '../../scripts/stack/state.js';
import { prepareClips } from '../room/speech.js';
import { type DriverEvent, runDriver } from '../room/stack-run.js';
import type { CapacityPlan } from './driver.js';
import { groupCpuMs, groupMemory, machineCpu, machineLoad } from './proc.js';
import { type StepRaw, type StepSummary, summarizeStep } from './summary.js';
import { type CapacityReport, type Transition, printCapacity } from './print.js';

const USER = 'What time does the pharmacy open tomorrow?';
const REPLY = 'The pharmacy opens at nine in the morning. It closes at six, and on Sundays it stays closed all day.';
const MS_PER_CHAR = 60;
const THRESHOLD = 300;
const AGENT = 'firstword-capacity';

export interface CapacityArgs {
  steps: number[];
  turns: number;
  maxCalls: number;
  tts: 'cartesia' | 'local';
  json?: string;
  maxMinutes: number;
  fullProbe: boolean;
}

function parseArgs(argv: string[]): CapacityArgs {
  const args: CapacityArgs = { steps: [1, 2, 4, 6], turns: 3, maxCalls: 6, tts: 'cartesia', maxMinutes: 20, fullProbe: true };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const int = (min: number, max: number) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} needs an integer ${min}–${max} (got ${value})`);
      i++;
      return n;
    };
    if (flag === '--steps') {
      args.steps = (value ?? '').split(',').map(Number);
      if (args.steps.length === 0 || args.steps.some((n) => !Number.isInteger(n) || n < 1 || n > 16) || args.steps[0] !== 1) {
        throw new Error('--steps needs rising call counts 1–16 starting at 1 (the baseline), e.g. 1,2,4,6');
      }
      i++;
    } else if (flag === '--turns') args.turns = int(1, 10);
    else if (flag === '--max-calls') args.maxCalls = int(1, 16);
    else if (flag === '--max-minutes') args.maxMinutes = int(2, 60);
    else if (flag === '--tts') {
      if (value !== 'cartesia' && value !== 'local') throw new Error('--tts must be cartesia or local');
      args.tts = value;
      i++;
    } else if (flag === '--json') args.json = (i++, value);
    else if (flag === '--no-full-probe') args.fullProbe = false;
    else throw new Error(`unknown option ${flag}`);
  }
  return args;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until the worker's group is back to its idle size: the last step's job processes have exited. */
async function settle(pid: number, idleProcesses: number, timeoutMs = 90_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(500)) {
    if (groupMemory(pid).processes <= idleProcesses) return true;
  }
  return false;
}

/**
 * Waits (bounded) until the worker's last status flip says available. livekit-server drops a room
 * job that finds every worker full (no retry once the worker frees up), so a step or the probe
 * that starts while the last step's "full" still stands would measure a dropped dispatch.
 */
async function available(logFile: string, timeoutMs = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    const last = capacityTransitions(logFile).at(-1);
    if (!last?.full) {
      // The flip is logged as the update goes out; give the server a moment to apply it.
      await sleep(500);
      return true;
    }
  }
  return false;
}

/** The framework's own lines when the worker's status flips (src: @livekit/agents worker.ts). */
function capacityTransitions(logFile: string): Transition[] {
  const out: Transition[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('capacity, marking as')) continue;
    try {
      const v = JSON.parse(line) as { time: number; msg: string; load?: number };
      out.push({ time: v.time, full: v.msg.includes('unavailable'), load: v.load });
    } catch {
      // Partial line.
    }
  }
  return out;
}

async function runStep(state: StackState, pid: number, plan: CapacityPlan, work: string, idlePssMb: number): Promise<StepRaw> {
  const planFile = join(work, `plan-${plan.mode}-${plan.calls}.json`);
  writeFileSync(planFile, `${JSON.stringify(plan)}\n`);
  const raw: StepRaw = { calls: plan.calls, joins: [], turns: [], windowMs: 0, workerCpuMs: 0, machineLoad: Number.NaN, memoryPeak: { processes: 0, rssMb: 0, pssMb: idlePssMb } };
  let cpu0 = 0;
  let t0 = 0;
  let m0 = machineCpu();
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    const m = groupMemory(pid);
    if (m.pssMb > raw.memoryPeak.pssMb) raw.memoryPeak = m;
  };
  const endWindow = () => {
    if (!t0 || raw.windowMs) return;
    clearInterval(sampler);
    raw.workerCpuMs = groupCpuMs(pid) - cpu0;
    raw.windowMs = Date.now() - t0;
    raw.machineLoad = machineLoad(m0, machineCpu());
  };
  const events: DriverEvent[] = [];
  const onEvent = (event: DriverEvent) => {
    events.push(event);
    if (event.bench === 'joined') raw.joins.push(event as unknown as StepRaw['joins'][number]);
    else if (event.bench === 'ready') {
      note(`${plan.calls} call(s): ${String(event.joined)} joined, ${String(event.failed)} not served; turns running`);
      cpu0 = groupCpuMs(pid);
      m0 = machineCpu();
      t0 = Date.now();
      sample();
      sampler = setInterval(sample, 1000);
    } else if (event.bench === 'turn') {
      const t = event as unknown as StepRaw['turns'][number];
      raw.turns.push(t);
      note(`  call ${t.call} turn ${t.turn}: ${t.ok ? `first sound ${Math.round(t.callerWaitMs ?? 0)} ms, ${t.gaps ?? 0} gaps` : `MISS ${t.error}`}`);
    } else if (event.bench === 'done') {
      endWindow();
      raw.callerCpuShare = event.callerCpuShare as number;
    } else if (event.bench === 'error') raw.error = String(event.error);
  };
  const code = await runDriver(state, planFile, plan.deadlineMs + 30_000, onEvent, note, join('bench', 'capacity', 'driver.ts'));
  endWindow();
  clearInterval(sampler);
  if (code !== 0 && !raw.error) raw.error = `driver exited ${code}`;
  writeFileSync(join(work, `events-${plan.mode}-${plan.calls}.json`), `${JSON.stringify(events)}\n`);
  return raw;
}

async function main(): Promise<number> {
  let args: CapacityArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench:capacity: ${(error as Error).message}\n`);
    return 2;
  }
  const started = Date.now();
  const deadline = started + args.maxMinutes * 60_000;
  const cores = cpus().length;
  const loadBefore = loadavg().map((v) => v.toFixed(2)).join(' ');
  log(`firstword capacity bench — steps ${args.steps.join(', ')} concurrent calls, ${args.turns} spoken turns each, AGENT_MAX_CALLS=${args.maxCalls}, TTS ${args.tts}`);
  log(`machine: ${cores} cores, load average ${loadBefore} at start`);

  const work = resolve('out', 'bench', 'capacity');
  mkdirSync(work, { recursive: true });
  const clip = (await prepareClips([{ key: 'speech', text: USER, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, `${JSON.stringify({ script: [{ match: 'pharmacy', reply: REPLY }] })}\n`);

  const state = await up({
    owner: 'harness',
    tts: args.tts,
    agentName: AGENT,
    web: false,
    // The Cartesia fake also runs for the local voice: the callers set its pace per turn.
    cartesia: true,
    // A job process that takes more than the framework's 10 s to start on a busy host would make every call wait.
    workerEnv: { AGENT_MAX_CALLS: String(args.maxCalls), TTS_PROVIDER: args.tts, AGENT_PROCESS_START_TIMEOUT_S: '60' },
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: MS_PER_CHAR, firstByteDelayMs: 120 })] },
    progress: (line) => note(`stack: ${line}`),
  });
  const stop = () => {
    note('interrupted: stopping the stack');
    void down(state).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const worker = state.processes.find((p) => p.name === 'worker')!;
  const steps: StepSummary[] = [];
  let stoppedBecause = 'every step ran';
  let full: Record<string, unknown> | undefined;
  let idle = groupMemory(worker.pid);
  try {
    // Idle processes prewarm (VAD, TTS socket) after registration: the idle worker is the fullest
    // it gets over a few seconds, not one early look.
    for (let i = 0; i < 20; i++, await sleep(500)) {
      const now = groupMemory(worker.pid);
      if (now.processes > idle.processes || (now.processes === idle.processes && now.pssMb > idle.pssMb)) idle = now;
    }
    note(`idle worker: ${idle.processes} processes, PSS ${idle.pssMb.toFixed(0)} MB, RSS ${idle.rssMb.toFixed(0)} MB`);
    const base = { agentName: AGENT, turns: args.turns, clip: { file: clip.file, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced }, transcript: USER, msPerChar: MS_PER_CHAR, threshold: THRESHOLD };
    for (const calls of args.steps) {
      if (Date.now() > deadline - 3 * 60_000) {
        stoppedBecause = `time: ${args.maxMinutes} min budget`;
        break;
      }
      if (!(await settle(worker.pid, idle.processes))) note('the last step\'s job processes had not all exited after 90 s; going on');
      if (!(await available(worker.logFile))) note('the worker still reported itself full after 60 s; going on');
      const raw = await runStep(state, worker.pid, { ...base, mode: 'step', calls, roomPrefix: `cap${calls}-${Date.now().toString(36)}`, deadlineMs: 120_000 + args.turns * 60_000 }, work, idle.pssMb);
      const summary = summarizeStep(raw, cores, idle.pssMb, steps[0]);
      steps.push(summary);
      if (summary.degraded.length > 0) {
        stoppedBecause = `degraded at ${calls} calls: ${summary.degraded.join('; ')}`;
        break;
      }
    }
    if (args.fullProbe && Date.now() < deadline - 60_000) {
      await settle(worker.pid, idle.processes);
      if (!(await available(worker.logFile))) note('the worker still reported itself full after 60 s; probing anyway');
      note(`full probe: ${args.maxCalls} silent calls, then one more`);
      const planFull: CapacityPlan = { ...base, mode: 'full', calls: args.maxCalls, roomPrefix: `full-${Date.now().toString(36)}`, deadlineMs: 300_000, workerLog: worker.logFile, extraWaitMs: 20_000, afterLeaveWaitMs: 45_000 };
      const planFile = join(work, 'plan-full.json');
      writeFileSync(planFile, `${JSON.stringify(planFull)}\n`);
      full = {};
      const code = await runDriver(state, planFile, 330_000, (e) => {
        if (e.bench === 'full' || e.bench === 'extra') Object.assign(full!, { [e.bench]: e });
        if (e.bench === 'error') full!.error = e.error;
      }, note, join('bench', 'capacity', 'driver.ts'));
      if (code !== 0) full.error ??= `driver exited ${code}`;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  const transitions = capacityTransitions(worker.logFile);
  const warnings = readFileSync(worker.logFile, 'utf8').split('\n').filter((l) => /"level":(40|50)/.test(l)).length;
  await down(state, note);
  const wallMs = Date.now() - started;
  const report: CapacityReport = { args, cores, loadBefore, loadAfter: loadavg().map((v) => v.toFixed(2)).join(' '), idle, steps, stoppedBecause, full, transitions, workerWarnings: warnings, wallMs, date: new Date().toISOString(), logs: state.runDir };
  printCapacity(report, log);
  if (args.json) {
    mkdirSync(dirname(resolve(args.json)), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
    log(`json: ${args.json}`);
  }
  return steps.length > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:capacity failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
