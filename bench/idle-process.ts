/**
 * What an idle prewarmed job process costs (not a test). The framework keeps min(cores, 4) of them
 * beside the live calls, and each runs what every job process runs while it waits: above all the
 * framework's event-loop monitor, a timer and a watchdog thread ticking at a fifth of its stall
 * threshold (LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS). Three settings, alternating:
 *
 *   framework  its own 100 ms (ticks every 20 ms): what a stock worker runs
 *   firstword  the worker's 250 ms (ticks every 50 ms, src/config/defaults.ts)
 *   off        0: no monitor
 *
 * Each sample: a job process forked as the worker forks one (./job-process.ts: the bundle, npm
 * start's flags, the embedded voice), left to settle after its acknowledgements are ready, then
 * its CPU from /proc over `--seconds`: all threads, its main thread, the rest; and its PSS.
 *
 *   npm run build && npm run bench:idle-process [-- --samples 3 --seconds 30 --node BIN --json out.json]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_AGENT, BUNDLED_JOB_MAIN, ROOT, START_FLAGS, arg, cpuMs, jobEnvironment, median, memoryMb, ratio, startJobProcess, threadCpuMs } from './job-process.js';

const SETTINGS = { framework: '100', firstword: '250', off: '0' } as const;
type Setting = keyof typeof SETTINGS;
const SETTING_NAMES = Object.keys(SETTINGS) as Setting[];

const SAMPLES = Number(arg('--samples') ?? 3);
const SECONDS = Number(arg('--seconds') ?? 30);
const NODE = arg('--node') ?? process.execPath;
const JSON_OUT = arg('--json');
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error(`--samples must be a whole number ≥ 1, not ${arg('--samples')}`);
if (!(SECONDS >= 5 && SECONDS <= 600)) throw new Error(`--seconds must be 5-600, not ${arg('--seconds')}`);
/** After "acknowledgements ready": the last of prewarm's work (the TTS socket, timers armed) settles. */
const SETTLE_MS = 5000;

interface Sample {
  /** Percent of one core, over the window. */
  corePct: number;
  mainThreadPct: number;
  otherThreadsPct: number;
  threads: number;
  pssMb: number;
}

const pct = (ms: number, windowMs: number) => Number(((ms / windowMs) * 100).toFixed(2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sample(setting: Setting): Promise<Sample> {
  const env = { ...jobEnvironment(), LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: SETTINGS[setting] };
  const job = await startJobProcess({ jobMain: BUNDLED_JOB_MAIN, agent: BUNDLED_AGENT, execArgv: START_FLAGS, env, node: NODE }, setting);
  try {
    const pid = job.child.pid!;
    await sleep(SETTLE_MS);
    const before = { all: cpuMs(pid), main: threadCpuMs(pid).get(String(pid)) ?? 0, at: performance.now() };
    await sleep(SECONDS * 1000);
    const threads = threadCpuMs(pid);
    const windowMs = performance.now() - before.at;
    const all = cpuMs(pid) - before.all;
    const main = (threads.get(String(pid)) ?? 0) - before.main;
    return { corePct: pct(all, windowMs), mainThreadPct: pct(main, windowMs), otherThreadsPct: pct(all - main, windowMs), threads: threads.size, pssMb: memoryMb(pid).pssMb };
  } finally {
    job.kill();
  }
}

execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
const node = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
console.log(`Idle job processes on Node ${node}: ${SAMPLES} samples of ${SECONDS} s each per setting`);
const samples: Record<Setting, Sample[]> = { framework: [], firstword: [], off: [] };
for (let i = 0; i < SAMPLES; i++) {
  for (const setting of SETTING_NAMES) {
    const s = await sample(setting);
    samples[setting].push(s);
    console.log(`${setting.padEnd(9)} (${SETTINGS[setting].padStart(3)} ms): ${s.corePct} % of a core (main thread ${s.mainThreadPct} %, other threads ${s.otherThreadsPct} %), ${s.threads} threads, PSS ${s.pssMb} MB`);
  }
}
const medians = Object.fromEntries(
  SETTING_NAMES.map((setting) => {
    const of = (pick: (s: Sample) => number) => median(samples[setting].map(pick));
    return [setting, { corePct: of((s) => s.corePct), mainThreadPct: of((s) => s.mainThreadPct), otherThreadsPct: of((s) => s.otherThreadsPct), threads: of((s) => s.threads), pssMb: of((s) => s.pssMb) }];
  }),
) as Record<Setting, Sample>;
const ratios = {
  firstwordOverFrameworkCpu: ratio(medians.firstword.corePct, medians.framework.corePct),
  offOverFrameworkCpu: ratio(medians.off.corePct, medians.framework.corePct),
};
console.log(JSON.stringify({ medians, ratios }, null, 2));
if (JSON_OUT) writeFileSync(JSON_OUT, `${JSON.stringify({ node, seconds: SECONDS, samplesEach: SAMPLES, settings: SETTINGS, medians, ratios, samples }, null, 2)}\n`);
