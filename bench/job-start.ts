/**
 * Job process start-up (not a test): a job process forked exactly as @livekit/agents forks one
 * (its job_proc_lazy_main.js with the agent's file as argument, the worker's Node flags inherited),
 * timed from fork to the framework's "initialized" reply, which it sends once our prewarm (VAD,
 * TTS, "job process ready") has returned. Two ways to run the worker:
 *
 *   tsx       `node --import tsx src/agent.ts start`: every job process compiles TypeScript
 *   compiled  `npm start`: `node --conditions=firstword-compiled dist/agent.js start`
 *
 * One process at a time, the two alternating; wall time and CPU (user + system, all threads,
 * from /proc) at the reply. No LiveKit server is needed: nothing connects before a job arrives.
 *
 *   npm run bench:job-start [-- --samples 6 --json out.json]
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const JOB_MAIN = join(dirname(createRequire(import.meta.url).resolve('@livekit/agents')), 'ipc', 'job_proc_lazy_main.js');
const CLOCK_TICKS_PER_S = 100;

const VARIANTS = {
  tsx: { execArgv: ['--import', 'tsx'], agent: join(ROOT, 'src', 'agent.ts') },
  compiled: { execArgv: ['--conditions=firstword-compiled'], agent: join(ROOT, 'dist', 'agent.js') },
} as const;
type Variant = keyof typeof VARIANTS;

/** What prewarm's configuration needs; nothing is contacted before a call. */
const ENV = {
  ...process.env,
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

async function sample(variant: Variant): Promise<{ wallMs: number; cpuMs: number }> {
  const { execArgv, agent } = VARIANTS[variant];
  const started = performance.now();
  const child: ChildProcess = fork(JOB_MAIN, [agent], { execArgv: [...execArgv], env: ENV, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const reply = new Promise<void>((resolvePromise, reject) => {
      child.on('message', (msg: { case?: string }) => {
        if (msg.case === 'initializeResponse') resolvePromise();
      });
      child.once('exit', (code) => reject(new Error(`${variant} job process exited ${code} before it was ready`)));
    });
    child.send({ case: 'initializeRequest', value: { loggerOptions: { pretty: false, level: 'info' }, sessionEndTimeout: 60_000 } });
    await reply;
    return { wallMs: Math.round(performance.now() - started), cpuMs: cpuMs(child.pid!) };
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

execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
// One unmeasured start each: tsx's transform cache and the OS file cache warm, as on a worker
// that has started job processes before.
await sample('tsx');
await sample('compiled');

const samples: Record<Variant, { wallMs: number; cpuMs: number }[]> = { tsx: [], compiled: [] };
for (let i = 0; i < SAMPLES; i += 1) {
  for (const variant of ['tsx', 'compiled'] as const) {
    const s = await sample(variant);
    samples[variant].push(s);
    console.log(`${variant.padEnd(8)} wall ${s.wallMs} ms, CPU ${s.cpuMs} ms`);
  }
}
const summary = (variant: Variant) => ({ medianWallMs: median(samples[variant].map((s) => s.wallMs)), medianCpuMs: median(samples[variant].map((s) => s.cpuMs)) });
const result = {
  node: process.version,
  samplesEach: SAMPLES,
  tsx: { ...summary('tsx'), samples: samples.tsx },
  compiled: { ...summary('compiled'), samples: samples.compiled },
  ratioCpu: Number((summary('tsx').medianCpuMs / summary('compiled').medianCpuMs).toFixed(2)),
  ratioWall: Number((summary('tsx').medianWallMs / summary('compiled').medianWallMs).toFixed(2)),
};
console.log(JSON.stringify({ ...result, tsx: summary('tsx'), compiled: summary('compiled') }, null, 2));
const out = arg('--json');
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
