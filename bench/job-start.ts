/**
 * Job process start-up (not a test): a job process forked exactly as @livekit/agents forks one
 * (its job_proc_lazy_main.js with the agent's file as argument, the worker's Node flags inherited),
 * timed from fork to two of its log lines: "job process ready" (the framework's "initialized"
 * reply follows it once prewarm returns: VAD loaded, TTS socket opening) and "acknowledgements
 * ready" (the phrases prepared after it, before any call needs them). Five ways to run it:
 *
 *   tsx          `node --import tsx src/agent.ts start`: every job process compiles TypeScript
 *   modules      compiled, but loaded module by module as before the bundle (./unbundled-agent.ts,
 *                the framework's own job process entry)
 *   compiled     `npm start`'s Node flags (read from package.json), the bundle's job process entry
 *                and dist/agent.js (scripts/bundle.mjs), each process synthesizing its acknowledgements
 *   shared-acks  the same, with the worker's acknowledgement store (ACK_AUDIO_DIR) that the
 *                unmeasured first start filled: what every job process after a worker's first pays
 *   compile-cache  the same, with the directory the worker hands its job processes in
 *                NODE_COMPILE_CACHE, filled by the first start: V8's code (Node 22.1+; Node 20
 *                has no compile cache) and the VAD's optimized graph (every Node)
 *
 * `--voice local` (the default: no keys, the embedded eSpeak voice, synthesized inside the job
 * process) or `--voice resemble` (the Resemble protocol fake from test/servers, in this process,
 * pacing like the live service: the job process only receives and frames the audio).
 *
 * One process at a time, the five alternating; wall time, CPU (user + system, all threads,
 * from /proc) at each line, and memory (RSS and its anonymous part, /proc/PID/smaps_rollup) at
 * the second: what every prewarmed process holds before a call. No LiveKit server is needed:
 * nothing connects before a job arrives. `--node BIN` forks them on another Node binary
 * (`bash scripts/ensure-node.sh 24`).
 *
 *   npm run bench:job-start [-- --samples 6 --voice local|resemble --json out.json --node BIN]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startResembleServer } from '../test/servers/resemble-server.js';
import {
  BUNDLED_AGENT,
  BUNDLED_JOB_MAIN,
  FRAMEWORK_JOB_MAIN,
  type Mark,
  ROOT,
  START_FLAGS,
  arg,
  jobEnvironment,
  median,
  memoryMb,
  ratio,
  startJobProcess,
} from './job-process.js';
import { writeUnbundledAgent } from './unbundled-agent.js';

const ACK_DIR = mkdtempSync(join(tmpdir(), 'fw-job-start-acks-'));
const COMPILE_CACHE_DIR = mkdtempSync(join(tmpdir(), 'fw-job-start-compile-'));
process.on('exit', () => {
  rmSync(ACK_DIR, { recursive: true, force: true });
  rmSync(COMPILE_CACHE_DIR, { recursive: true, force: true });
});

const VARIANTS = {
  tsx: { execArgv: ['--import', 'tsx'], jobMain: FRAMEWORK_JOB_MAIN, agent: join(ROOT, 'src', 'agent.ts'), ackDir: undefined, compileCache: undefined },
  modules: { execArgv: START_FLAGS, jobMain: FRAMEWORK_JOB_MAIN, agent: await writeUnbundledAgent(ROOT), ackDir: undefined, compileCache: undefined },
  compiled: { execArgv: START_FLAGS, jobMain: BUNDLED_JOB_MAIN, agent: BUNDLED_AGENT, ackDir: undefined, compileCache: undefined },
  'shared-acks': { execArgv: START_FLAGS, jobMain: BUNDLED_JOB_MAIN, agent: BUNDLED_AGENT, ackDir: ACK_DIR, compileCache: undefined },
  // As a worker runs them: V8's code from the cache on Node 22.1+ (Node 20 has none), the VAD's
  // optimized graph on every Node.
  'compile-cache': { execArgv: START_FLAGS, jobMain: BUNDLED_JOB_MAIN, agent: BUNDLED_AGENT, ackDir: ACK_DIR, compileCache: COMPILE_CACHE_DIR },
} as const;
type Variant = keyof typeof VARIANTS;

const SAMPLES = Number(arg('--samples') ?? 6);
const NODE = arg('--node') ?? process.execPath;
const VOICE = arg('--voice') ?? 'local';
if (VOICE !== 'local' && VOICE !== 'resemble') throw new Error(`--voice must be local or resemble, not ${VOICE}`);
const resemble = VOICE === 'resemble' ? await startResembleServer({ msPerChar: 60, realTimeFactor: 0.2 }) : undefined;

const ENV = jobEnvironment(resemble?.url);

interface Sample {
  ready: Mark;
  acksReady: Mark;
  /** Acknowledgements the process read from the worker's store instead of synthesizing them. */
  acksFromStore: number;
  rssMb: number;
  anonMb: number;
}

async function sample(variant: Variant): Promise<Sample> {
  const { execArgv, jobMain, agent, ackDir, compileCache } = VARIANTS[variant];
  const env = { ...ENV, ...(ackDir ? { ACK_AUDIO_DIR: ackDir } : {}), ...(compileCache ? { NODE_COMPILE_CACHE: compileCache } : {}) };
  const started = await startJobProcess({ jobMain, agent, execArgv, env, node: NODE }, variant);
  try {
    const { rssMb, anonMb } = memoryMb(started.child.pid!);
    return { ready: started.ready, acksReady: started.acksReady, acksFromStore: started.acksFromStore, rssMb, anonMb };
  } finally {
    started.kill();
  }
}

const VARIANT_NAMES = Object.keys(VARIANTS) as Variant[];

execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
// One unmeasured start each: tsx's transform cache and the OS file cache warm, and the worker's
// acknowledgement store filled, as on a worker that has started job processes before.
for (const variant of VARIANT_NAMES) await sample(variant);

const samples = Object.fromEntries(VARIANT_NAMES.map((v) => [v, [] as Sample[]])) as Record<Variant, Sample[]>;
for (let i = 0; i < SAMPLES; i += 1) {
  for (const variant of VARIANT_NAMES) {
    const s = await sample(variant);
    samples[variant].push(s);
    console.log(
      `${variant.padEnd(13)} ready: wall ${s.ready.wallMs} ms, CPU ${s.ready.cpuMs} ms; acknowledgements (${s.acksFromStore} read): ` +
        `wall ${s.acksReady.wallMs} ms, CPU ${s.acksReady.cpuMs} ms; RSS ${s.rssMb} MB (${s.anonMb} MB anonymous)`,
    );
  }
}
const summary = (variant: Variant) => {
  const of = (pick: (s: Sample) => number) => median(samples[variant].map(pick));
  return {
    readyCpuMs: of((s) => s.ready.cpuMs),
    readyWallMs: of((s) => s.ready.wallMs),
    acksReadyCpuMs: of((s) => s.acksReady.cpuMs),
    acksReadyWallMs: of((s) => s.acksReady.wallMs),
    acksFromStore: of((s) => s.acksFromStore),
    rssMb: of((s) => s.rssMb),
    anonMb: of((s) => s.anonMb),
  };
};
const medians = Object.fromEntries(VARIANT_NAMES.map((v) => [v, summary(v)])) as Record<Variant, ReturnType<typeof summary>>;
const ratios = {
  bundledOverModulesReadyCpu: ratio(medians.compiled.readyCpuMs, medians.modules.readyCpuMs),
  bundledOverModulesReadyWall: ratio(medians.compiled.readyWallMs, medians.modules.readyWallMs),
  bundledOverModulesAcksReadyCpu: ratio(medians.compiled.acksReadyCpuMs, medians.modules.acksReadyCpuMs),
  bundledOverModulesRss: ratio(medians.compiled.rssMb, medians.modules.rssMb),
  tsxOverCompiledAcksReadyCpu: ratio(medians.tsx.acksReadyCpuMs, medians.compiled.acksReadyCpuMs),
  sharedOverCompiledAcksReadyCpu: ratio(medians['shared-acks'].acksReadyCpuMs, medians.compiled.acksReadyCpuMs),
  sharedOverCompiledAcksReadyWall: ratio(medians['shared-acks'].acksReadyWallMs, medians.compiled.acksReadyWallMs),
  sharedOverCompiledReadyCpu: ratio(medians['shared-acks'].readyCpuMs, medians.compiled.readyCpuMs),
  cacheOverSharedReadyCpu: ratio(medians['compile-cache'].readyCpuMs, medians['shared-acks'].readyCpuMs),
  cacheOverSharedReadyWall: ratio(medians['compile-cache'].readyWallMs, medians['shared-acks'].readyWallMs),
  cacheOverSharedRss: ratio(medians['compile-cache'].rssMb, medians['shared-acks'].rssMb),
};
console.log(JSON.stringify({ medians, ratios }, null, 2));
const result = {
  node: execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim(),
  voice: VOICE,
  samplesEach: SAMPLES,
  medians,
  ratios,
  samples,
};
const out = arg('--json');
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
await resemble?.close();
