/**
 * `npm run bench:capacity [-- --steps 1,2,4,6 --turns 3 --max-calls 6 --tts cartesia|local
 * --json FILE --max-minutes 20 --no-full-probe --compare stock --cpu-profile DIR --node BIN]`: how many calls one worker
 * carries through a real LiveKit SFU before its callers notice, and what each call costs.
 *
 * The stack of `npm run stack` in its own network namespace (loopback and namespace addresses
 * only): livekit-server, Redis, the OpenAI fake, the Cartesia-protocol fake (audible tones) or
 * the local voice, and one production worker with AGENT_MAX_CALLS. Steps of concurrent calls,
 * each caller an rtc-node participant speaking real speech (bench/capacity/driver.ts), rising
 * until the first-sound p90 or the replies' continuity degrades against the 1-call step. Per step:
 * the worker's process group's CPU and memory from /proc (callers excluded), steady (every call
 * live) and start-up (per job process) apart, the call processes' threads, what its load function
 * reports, and at the end whether LiveKit stops dispatching to it once it says it is full.
 *
 * `--compare stock` also starts a stock agents-js worker (./stock-agent.ts) on the same server and
 * fakes, runs each step through both in turn (never at once) and reports ours / stock.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { down, up } from '../../scripts/stack/stack.js';
import { prepareClips } from '../room/speech.js';
import { runDriver } from '../room/stack-run.js';
import { type CapacityArgs, parseArgs } from './args.js';
import type { CapacityPlan } from './driver.js';
import { groupMemory } from './proc.js';
import { CpuSampler } from './sampler.js';
import { type StepSummary, summarizeStep } from './summary.js';
import { type CapacityReport, type WorkerRun, printCapacity } from './print.js';
import { type Target, available, rolesNow, runStep, settle } from './step.js';
import { startStockWorker } from './stock-worker.js';
import { busiestProfile, printProfileSummary } from './profile-summary.js';
import { capacityTransitions, processMarksOf } from './worker-log.js';

const USER = 'What time does the pharmacy open tomorrow?';
const REPLY = 'The pharmacy opens at nine in the morning. It closes at six, and on Sundays it stays closed all day.';
const MS_PER_CHAR = 60;
const THRESHOLD = 300;
const AGENT = 'firstword-capacity';
const STOCK_AGENT_NAME = 'stock-capacity';
const STOCK_HTTP_PORT = 18084;
/** A job process's boot and prewarm, left out of its profile's summary. */
const PROFILE_SKIP_S = 15;

const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  log(
    `firstword capacity bench — steps ${args.steps.join(', ')} concurrent calls, ${args.turns} spoken turns each, AGENT_MAX_CALLS=${args.maxCalls}, TTS ${args.tts}` +
      (args.compare ? ', beside a stock agents-js worker (each step through each worker in turn)' : ''),
  );
  const workerNode = execFileSync(args.nodeBinary ?? process.execPath, ['--version'], { encoding: 'utf8' }).trim();
  log(`machine: ${cores} cores, load average ${loadBefore} at start; workers on Node ${workerNode}`);

  const work = resolve('out', 'bench', 'capacity');
  mkdirSync(work, { recursive: true });
  const clip = (await prepareClips([{ key: 'speech', text: USER, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, `${JSON.stringify({ script: [{ match: 'pharmacy', reply: REPLY }] })}\n`);

  // Both workers get the same harness settings: full at a call count, 60 s for a job process to start.
  const harnessEnv: Record<string, string> = { AGENT_MAX_CALLS: String(args.maxCalls), AGENT_PROCESS_START_TIMEOUT_S: '60' };
  if (args.cpuProfileDir) {
    const dir = resolve(args.cpuProfileDir);
    mkdirSync(dir, { recursive: true });
    harnessEnv.NODE_OPTIONS = `--import=${resolve('bench', 'capacity', 'cpu-profile-hook.mjs')}`;
    // One folder per worker: the busiest profile of each is its own call process.
    for (const name of ['firstword', 'stock']) mkdirSync(join(dir, name), { recursive: true });
  }
  const profileEnv = (worker: 'firstword' | 'stock'): Record<string, string> =>
    args.cpuProfileDir ? { FIRSTWORD_CPU_PROFILE_DIR: join(resolve(args.cpuProfileDir), worker) } : {};
  const sampler = new CpuSampler();
  const state = await up({
    owner: 'harness',
    tts: args.tts,
    agentName: AGENT,
    web: false,
    // The Cartesia fake also runs for the local voice: the callers set its pace per turn.
    cartesia: true,
    // A job process that takes more than the framework's 10 s to start on a busy host would make every call wait.
    workerEnv: { ...harnessEnv, ...profileEnv('firstword'), TTS_PROVIDER: args.tts },
    ...(args.nodeBinary ? { workerNode: args.nodeBinary } : {}),
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: MS_PER_CHAR, firstByteDelayMs: 120 })] },
    progress: (line) => note(`stack: ${line}`),
  });
  const stop = () => {
    note('interrupted: stopping the stack');
    sampler.stop();
    void down(state).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const worker = state.processes.find((p) => p.name === 'worker')!;
  sampler.watch(worker.pid);
  const targets: Target[] = [{ name: 'firstword', agentName: AGENT, pid: worker.pid, logFile: worker.logFile, idle: groupMemory(worker.pid) }];
  const steps = new Map<Target['name'], StepSummary[]>([['firstword', []]]);
  const idleRoles = new Map<Target['name'], Record<string, number>>();
  let stoppedBecause = 'every step ran';
  let full: Record<string, unknown> | undefined;
  try {
    if (args.compare) {
      const t0 = Date.now();
      const stock = await startStockWorker(state, { name: 'worker-stock', agentName: STOCK_AGENT_NAME, httpPort: STOCK_HTTP_PORT, env: { ...harnessEnv, ...profileEnv('stock') }, ...(args.nodeBinary ? { nodeBinary: args.nodeBinary } : {}) }, (pid) => sampler.watch(pid));
      note(`stack: stock worker ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      targets.push({ name: 'stock', agentName: STOCK_AGENT_NAME, pid: stock.record.pid, logFile: stock.record.logFile, idle: groupMemory(stock.record.pid) });
      steps.set('stock', []);
    }
    // Idle processes prewarm after registration: each worker at rest (spares ready), then a few seconds for what prewarm leaves running (a TTS socket).
    for (const t of targets) if (!(await settle(t, sampler))) note(`${t.name}: its job processes were not all ready after 120 s; going on`);
    await sleep(5000);
    for (const t of targets) {
      t.idle = groupMemory(t.pid);
      idleRoles.set(t.name, rolesNow(t, sampler));
      note(`idle ${t.name} worker: ${t.idle.processes} processes (${JSON.stringify(idleRoles.get(t.name))}), PSS ${t.idle.pssMb.toFixed(0)} MB, RSS ${t.idle.rssMb.toFixed(0)} MB`);
    }
    const base = { turns: args.turns, clip: { file: clip.file, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced }, transcript: USER, msPerChar: MS_PER_CHAR, threshold: THRESHOLD };
    const io = { state, sampler, work, note };
    ladder: for (const [index, calls] of args.steps.entries()) {
      // Alternate which worker goes first, so drift in the machine's load falls on both alike.
      const order = index % 2 === 0 ? targets : [...targets].reverse();
      const degradedNow: string[] = [];
      for (const target of order) {
        if (Date.now() > deadline - 3 * 60_000) {
          stoppedBecause = `time: ${args.maxMinutes} min budget`;
          break ladder;
        }
        if (!(await settle(target, sampler))) note(`${target.name}: the last step's call processes had not all exited, or its spares were not ready, after 120 s; going on`);
        if (!(await available(target.logFile))) note(`${target.name}: the worker still reported itself full after 60 s; going on`);
        const plan: CapacityPlan = { ...base, agentName: target.agentName, mode: 'step', calls, roomPrefix: `cap-${target.name}${calls}-${Date.now().toString(36)}`, deadlineMs: 120_000 + args.turns * 60_000 };
        const raw = await runStep(io, target, plan);
        // The job processes' last readings come after their session lines; the log is complete once the step is.
        const inputs = { role: (pid: number) => sampler.role(pid), series: (pid: number) => sampler.series(pid), marks: processMarksOf(target.logFile) };
        const list = steps.get(target.name)!;
        const summary = summarizeStep(raw, cores, target.idle.pssMb, list[0], inputs);
        list.push(summary);
        if (summary.degraded.length > 0) degradedNow.push(`${target.name}: ${summary.degraded.join('; ')}`);
      }
      // A step where only one worker degraded still gives both a figure: the ladder stops once every worker has.
      if (degradedNow.length === targets.length) {
        stoppedBecause = `degraded at ${calls} calls: ${degradedNow.join(' | ')}`;
        break;
      }
    }
    if (args.fullProbe && !args.compare && Date.now() < deadline - 60_000) full = await fullProbe(io, targets[0]!, base, args.maxCalls);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    sampler.stop();
  }
  const runs: WorkerRun[] = targets.map((t) => ({
    worker: t.name,
    agentName: t.agentName,
    idle: t.idle,
    idleRoles: idleRoles.get(t.name) ?? {},
    steps: steps.get(t.name)!,
    transitions: capacityTransitions(t.logFile),
    workerWarnings: readFileSync(t.logFile, 'utf8').split('\n').filter((l) => /"level":(40|50)/.test(l)).length,
  }));
  await down(state, note);
  // The processes write their profiles as they exit: all of them have now.
  const profiles = args.cpuProfileDir
    ? runs.map(({ worker }) => ({ worker, profile: busiestProfile(join(resolve(args.cpuProfileDir!), worker), PROFILE_SKIP_S) }))
    : [];
  const wallMs = Date.now() - started;
  const report: CapacityReport = { args, cores, loadBefore, loadAfter: loadavg().map((v) => v.toFixed(2)).join(' '), runs, stoppedBecause, full, wallMs, date: new Date().toISOString(), logs: state.runDir, workerNode };
  printCapacity(report, log);
  for (const { worker, profile } of profiles) {
    if (!profile) continue;
    log(`${worker} worker, its call process:`);
    printProfileSummary(profile, log);
  }
  if (args.json) {
    mkdirSync(dirname(resolve(args.json)), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
    log(`json: ${args.json}`);
  }
  return runs.every((r) => r.steps.length > 0) ? 0 : 1;
}

/** Fills the worker to AGENT_MAX_CALLS with silent callers, then sees whether one more gets an agent while it is full and after one leaves. */
async function fullProbe(io: Parameters<typeof runStep>[0], target: Target, base: Omit<CapacityPlan, 'agentName' | 'mode' | 'calls' | 'roomPrefix' | 'deadlineMs'>, maxCalls: number): Promise<Record<string, unknown>> {
  await settle(target, io.sampler);
  if (!(await available(target.logFile))) note('the worker still reported itself full after 60 s; probing anyway');
  note(`full probe: ${maxCalls} silent calls, then one more`);
  const planFull: CapacityPlan = { ...base, agentName: target.agentName, mode: 'full', calls: maxCalls, roomPrefix: `full-${Date.now().toString(36)}`, deadlineMs: 300_000, workerLog: target.logFile, extraWaitMs: 20_000, afterLeaveWaitMs: 45_000 };
  const planFile = join(io.work, 'plan-full.json');
  writeFileSync(planFile, `${JSON.stringify(planFull)}\n`);
  const full: Record<string, unknown> = {};
  const code = await runDriver(io.state, planFile, 330_000, (e) => {
    if (e.bench === 'full' || e.bench === 'extra') Object.assign(full, { [e.bench]: e });
    if (e.bench === 'error') full.error = e.error;
  }, io.note, join('bench', 'capacity', 'driver.ts'));
  if (code !== 0) full.error ??= `driver exited ${code}`;
  return full;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:capacity failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
