/**
 * Job process start-up (not a test): a job process forked exactly as @livekit/agents forks one
 * (its job_proc_lazy_main.js with the agent's file as argument, the worker's Node flags inherited),
 * timed from fork to the framework's "initialized" reply, which it sends once our prewarm (VAD,
 * TTS, "job process ready") has returned. Three ways to run the worker:
 *
 *   tsx       `node --import tsx src/agent.ts start`: every job process compiles TypeScript
 *   compiled  `npm start`'s Node flags (read from package.json) and dist/agent.js, without
 *             Node's compile cache
 *   cached    the same with Node's compile cache (NODE_COMPILE_CACHE, a fresh folder the first
 *             unmeasured start fills; Node 22.1+, ignored by Node 20): whether reading V8's
 *             compiled code back beats compiling it again
 *
 * One process at a time, the three alternating; wall time, CPU (user + system, all threads,
 * from /proc) and memory (RSS and its anonymous part, /proc/PID/smaps_rollup) at the reply: what
 * every prewarmed process holds before a call. No LiveKit server is needed: nothing connects before a job arrives.
 * `--node BIN` forks them on another Node binary (`bash scripts/ensure-node.sh 24`).
 *
 *   npm run bench:job-start [-- --samples 6 --json out.json --node BIN]
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const JOB_MAIN = join(dirname(createRequire(import.meta.url).resolve('@livekit/agents')), 'ipc', 'job_proc_lazy_main.js');
const CLOCK_TICKS_PER_S = 100;

const CACHE_DIR = mkdtempSync(join(tmpdir(), 'fw-compile-cache-'));
process.on('exit', () => rmSync(CACHE_DIR, { recursive: true, force: true }));

/** `npm start`'s Node flags: what the production worker's job processes inherit. */
const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

const VARIANTS = {
  tsx: { execArgv: ['--import', 'tsx'], agent: join(ROOT, 'src', 'agent.ts'), compileCache: undefined },
  compiled: { execArgv: START_FLAGS, agent: join(ROOT, 'dist', 'agent.js'), compileCache: undefined },
  cached: { execArgv: START_FLAGS, agent: join(ROOT, 'dist', 'agent.js'), compileCache: CACHE_DIR },
} as const;
type Variant = keyof typeof VARIANTS;

/** What prewarm's configuration needs; nothing is contacted before a call. */
const { NODE_COMPILE_CACHE: _ownCache, ...inherited } = process.env;
const ENV = {
  ...inherited,
  LIVEKIT_URL: 'ws://127.0.0.1:7880',
  LIVEKIT_API_KEY: 'devkey',
  LIVEKIT_API_SECRET: 'secret',
  OPENAI_API_KEY: 'test-key',
  NODE_ENV: 'production',
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

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
  anonMb: number;
}

async function sample(variant: Variant): Promise<Sample> {
  const { execArgv, agent, compileCache } = VARIANTS[variant];
  const env = compileCache ? { ...ENV, NODE_COMPILE_CACHE: compileCache } : ENV;
  const started = performance.now();
  const child: ChildProcess = fork(JOB_MAIN, [agent], { execArgv: [...execArgv], execPath: NODE, env, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const reply = new Promise<void>((resolvePromise, reject) => {
      child.on('message', (msg: { case?: string }) => {
        if (msg.case === 'initializeResponse') resolvePromise();
      });
      child.once('exit', (code) => reject(new Error(`${variant} job process exited ${code} before it was ready`)));
    });
    child.send({ case: 'initializeRequest', value: { loggerOptions: { pretty: false, level: 'info' }, sessionEndTimeout: 60_000 } });
    await reply;
    return { wallMs: Math.round(performance.now() - started), cpuMs: cpuMs(child.pid!), ...memoryMb(child.pid!) };
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const SAMPLES = Number(arg('--samples') ?? 6);
const NODE = arg('--node') ?? process.execPath;
const VARIANT_NAMES = Object.keys(VARIANTS) as Variant[];

execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
// One unmeasured start each: tsx's transform cache, the compile cache and the OS file cache warm,
// as on a worker that has started job processes before.
for (const variant of VARIANT_NAMES) await sample(variant);

const samples: Record<Variant, Sample[]> = { tsx: [], compiled: [], cached: [] };
for (let i = 0; i < SAMPLES; i += 1) {
  for (const variant of VARIANT_NAMES) {
    const s = await sample(variant);
    samples[variant].push(s);
    console.log(`${variant.padEnd(8)} wall ${s.wallMs} ms, CPU ${s.cpuMs} ms, RSS ${s.rssMb} MB (${s.anonMb} MB anonymous)`);
  }
}
const summary = (variant: Variant) => {
  const of = (field: keyof Sample) => median(samples[variant].map((s) => s[field]));
  return { medianWallMs: of('wallMs'), medianCpuMs: of('cpuMs'), medianRssMb: of('rssMb'), medianAnonMb: of('anonMb') };
};
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
const result = {
  node: execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim(),
  samplesEach: SAMPLES,
  tsx: { ...summary('tsx'), samples: samples.tsx },
  compiled: { ...summary('compiled'), samples: samples.compiled },
  cached: { ...summary('cached'), samples: samples.cached },
  ratioCpu: ratio(summary('tsx').medianCpuMs, summary('compiled').medianCpuMs),
  ratioWall: ratio(summary('tsx').medianWallMs, summary('compiled').medianWallMs),
  cachedOverCompiledCpu: ratio(summary('cached').medianCpuMs, summary('compiled').medianCpuMs),
  cachedOverCompiledWall: ratio(summary('cached').medianWallMs, summary('compiled').medianWallMs),
};
console.log(JSON.stringify({ ...result, tsx: summary('tsx'), compiled: summary('compiled'), cached: summary('cached') }, null, 2));
const out = arg('--json');
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
