/**
 * Job process start-up (not a test): a job process forked exactly as @livekit/agents forks one
 * (its job_proc_lazy_main.js with the agent's file as argument, the worker's Node flags inherited),
 * timed from fork to two of its log lines: "job process ready" (the framework's "initialized"
 * reply follows it once prewarm returns: VAD loaded, TTS socket opening) and "acknowledgements
 * ready" (the phrases prepared after it, before any call needs them). Four ways to run it:
 *
 *   tsx          `node --import tsx src/agent.ts start`: every job process compiles TypeScript
 *   modules      compiled, but loaded module by module as before the bundle (./unbundled-agent.ts,
 *                the framework's own job process entry)
 *   compiled     `npm start`'s Node flags (read from package.json), the bundle's job process entry
 *                and dist/agent.js (scripts/bundle.mjs), each process synthesizing its acknowledgements
 *   shared-acks  the same, with the worker's acknowledgement store (ACK_AUDIO_DIR) that the
 *                unmeasured first start filled: what every job process after a worker's first pays
 *
 * `--voice local` (the default: no keys, the embedded eSpeak voice, synthesized inside the job
 * process) or `--voice resemble` (the Resemble protocol fake from test/servers, in this process,
 * pacing like the live service: the job process only receives and frames the audio).
 *
 * One process at a time, the four alternating; wall time, CPU (user + system, all threads,
 * from /proc) at each line, and memory (RSS and its anonymous part, /proc/PID/smaps_rollup) at
 * the second: what every prewarmed process holds before a call. No LiveKit server is needed:
 * nothing connects before a job arrives. `--node BIN` forks them on another Node binary
 * (`bash scripts/ensure-node.sh 24`).
 *
 *   npm run bench:job-start [-- --samples 6 --voice local|resemble --json out.json --node BIN]
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startResembleServer } from '../test/servers/resemble-server.js';
import { writeUnbundledAgent } from './unbundled-agent.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The framework's job process entry as a module of its own, and as the bundle's (scripts/bundle.mjs). */
const FRAMEWORK_JOB_MAIN = join(dirname(createRequire(import.meta.url).resolve('@livekit/agents')), 'ipc', 'job_proc_lazy_main.js');
const BUNDLED_JOB_MAIN = join(ROOT, 'dist', 'job_proc_lazy_main.js');
const CLOCK_TICKS_PER_S = 100;

const ACK_DIR = mkdtempSync(join(tmpdir(), 'fw-job-start-acks-'));
process.on('exit', () => rmSync(ACK_DIR, { recursive: true, force: true }));

/** `npm start`'s Node flags: what the production worker's job processes inherit. */
const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

const VARIANTS = {
  tsx: { execArgv: ['--import', 'tsx'], jobMain: FRAMEWORK_JOB_MAIN, agent: join(ROOT, 'src', 'agent.ts'), ackDir: undefined },
  modules: { execArgv: START_FLAGS, jobMain: FRAMEWORK_JOB_MAIN, agent: await writeUnbundledAgent(ROOT), ackDir: undefined },
  compiled: { execArgv: START_FLAGS, jobMain: BUNDLED_JOB_MAIN, agent: join(ROOT, 'dist', 'agent.js'), ackDir: undefined },
  'shared-acks': { execArgv: START_FLAGS, jobMain: BUNDLED_JOB_MAIN, agent: join(ROOT, 'dist', 'agent.js'), ackDir: ACK_DIR },
} as const;
type Variant = keyof typeof VARIANTS;

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const SAMPLES = Number(arg('--samples') ?? 6);
const NODE = arg('--node') ?? process.execPath;
const VOICE = arg('--voice') ?? 'local';
if (VOICE !== 'local' && VOICE !== 'resemble') throw new Error(`--voice must be local or resemble, not ${VOICE}`);
const resemble = VOICE === 'resemble' ? await startResembleServer({ msPerChar: 60, realTimeFactor: 0.2 }) : undefined;

/** What prewarm's configuration needs; nothing is contacted before a call but the TTS. */
const { ACK_AUDIO_DIR: _ownAcks, TTS_PROVIDER: _ownProvider, ...inherited } = process.env;
const ENV: NodeJS.ProcessEnv = {
  ...inherited,
  LIVEKIT_URL: 'ws://127.0.0.1:7880',
  LIVEKIT_API_KEY: 'devkey',
  LIVEKIT_API_SECRET: 'secret',
  OPENAI_API_KEY: 'test-key',
  NODE_ENV: 'production',
  ...(resemble
    ? { TTS_PROVIDER: 'resemble', RESEMBLE_API_KEY: 'test-key', RESEMBLE_VOICE_UUID: 'voice-1', RESEMBLE_BASE_URL: resemble.url }
    : { TTS_PROVIDER: 'local' }),
};

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

function memoryMb(pid: number): { rssMb: number; anonMb: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb('Rss') / 1024), anonMb: Math.round(kb('Anonymous') / 1024) };
}

interface Mark {
  wallMs: number;
  cpuMs: number;
}

interface Sample {
  ready: Mark;
  acksReady: Mark;
  /** Acknowledgements the process read from the worker's store instead of synthesizing them. */
  acksFromStore: number;
  rssMb: number;
  anonMb: number;
}

async function sample(variant: Variant): Promise<Sample> {
  const { execArgv, jobMain, agent, ackDir } = VARIANTS[variant];
  const env = ackDir ? { ...ENV, ACK_AUDIO_DIR: ackDir } : ENV;
  const started = performance.now();
  const child: ChildProcess = fork(jobMain, [agent], { execArgv: [...execArgv], execPath: NODE, env, cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const mark = (): Mark => ({ wallMs: Math.round(performance.now() - started), cpuMs: cpuMs(child.pid!) });
  try {
    const lines = createInterface({ input: child.stdout! });
    const marks = new Promise<Omit<Sample, 'rssMb' | 'anonMb'>>((resolvePromise, reject) => {
      let ready: Mark | undefined;
      const warnings: string[] = [];
      lines.on('line', (line) => {
        if (line.includes('"level":40') || line.includes('"level":50')) warnings.push(line);
        if (line.includes('"job process ready"')) ready = mark();
        else if (line.includes('"acknowledgements ready"')) {
          const acksReady = mark();
          const { acks, fromStore } = JSON.parse(line) as { acks: number; fromStore: number };
          if (!ready) reject(new Error(`${variant}: acknowledgements ready before the process was`));
          else if (acks === 0) reject(new Error(`${variant}: no acknowledgement was prepared (${warnings.join('; ') || 'nothing logged'})`));
          else resolvePromise({ ready, acksReady, acksFromStore: fromStore });
        }
      });
      child.once('exit', (code) => reject(new Error(`${variant} job process exited ${code} before its acknowledgements were ready`)));
    });
    child.send({ case: 'initializeRequest', value: { loggerOptions: { pretty: false, level: 'info' }, sessionEndTimeout: 60_000 } });
    const result = await marks;
    return { ...result, ...memoryMb(child.pid!) };
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const VARIANT_NAMES = Object.keys(VARIANTS) as Variant[];

execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
// One unmeasured start each: tsx's transform cache and the OS file cache warm, and the worker's
// acknowledgement store filled, as on a worker that has started job processes before.
for (const variant of VARIANT_NAMES) await sample(variant);

const samples: Record<Variant, Sample[]> = { tsx: [], modules: [], compiled: [], 'shared-acks': [] };
for (let i = 0; i < SAMPLES; i += 1) {
  for (const variant of VARIANT_NAMES) {
    const s = await sample(variant);
    samples[variant].push(s);
    console.log(
      `${variant.padEnd(11)} ready: wall ${s.ready.wallMs} ms, CPU ${s.ready.cpuMs} ms; acknowledgements (${s.acksFromStore} read): ` +
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
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
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
