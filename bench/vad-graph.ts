/**
 * What loading Silero costs a fresh process, and what its windows cost after, three ways
 * (src/stt/silero-vad.ts):
 *
 *   plugin   as `VAD.load()` does it: onnxruntime optimizes the graph at its default level
 *   saving   the first job process's load: optimized at `extended` and saved to a directory
 *   saved    every later one's: the saved graph read as it is, nothing optimized
 *
 * Each sample is a fresh Node process (onnxruntime's own start-up is in every figure alike); the
 * three alternate. CPU from `process.cpuUsage()` around the load, then per 32 ms window over 2,000
 * windows of a steady signal after 200 unmeasured ones.
 *
 *   npm run bench:vad-graph [-- --samples 7 --json out.json]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { SILERO_MODEL, loadSileroVad, optimizedGraphPath } from '../src/stt/silero-vad.js';
import { arg, median, ratio } from './job-process.js';

const MODES = ['plugin', 'saving', 'saved'] as const;
type Mode = (typeof MODES)[number];
const WINDOWS = 2000;

interface Sample {
  loadCpuMs: number;
  windowCpuUs: number;
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** One sample, in this (fresh) process. */
async function measure(mode: Mode, dir: string): Promise<Sample> {
  if (mode === 'saving') rmSync(join(dir, 'onnxruntime'), { recursive: true, force: true });
  const started = process.cpuUsage();
  await loadSileroVad({ minSilenceDuration: 250, cacheDir: mode === 'plugin' ? undefined : dir });
  const loadCpuMs = cpuMsSince(started);
  // The windows run on the graph the load made: the saved one unless the plugin's way.
  const session = await InferenceSession.create(
    mode === 'plugin' ? SILERO_MODEL : optimizedGraphPath(dir),
    { interOpNumThreads: 1, intraOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: mode === 'plugin' ? 'all' : 'disabled' },
  );
  const input = new Float32Array(576).map((_, i) => 0.3 * Math.sin(i / 7));
  const run = () =>
    session.run({ input: new Tensor('float32', input, [1, 576]), state: new Tensor('float32', new Float32Array(256), [2, 1, 128]), sr: new Tensor('int64', BigInt64Array.from([16000n])) });
  for (let i = 0; i < 200; i++) await run();
  const windows = process.cpuUsage();
  for (let i = 0; i < WINDOWS; i++) await run();
  return { loadCpuMs: Math.round(loadCpuMs), windowCpuUs: Math.round((cpuMsSince(windows) * 1000) / WINDOWS) };
}

const child = arg('--measure') as Mode | undefined;
if (child) {
  process.stdout.write(JSON.stringify(await measure(child, arg('--dir')!)));
} else {
  const samplesEach = Number(arg('--samples') ?? 7);
  const dir = mkdtempSync(join(tmpdir(), 'fw-vad-graph-'));
  const self = fileURLToPath(import.meta.url);
  const samples: Record<Mode, Sample[]> = { plugin: [], saving: [], saved: [] };
  try {
    for (let i = 0; i < samplesEach; i++) {
      for (const mode of MODES) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--measure', mode, '--dir', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
        const sample = JSON.parse(out) as Sample;
        samples[mode].push(sample);
        console.log(`${mode.padEnd(6)} load ${sample.loadCpuMs} ms CPU, ${sample.windowCpuUs} µs CPU a window`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const medians = Object.fromEntries(
    MODES.map((m) => [m, { loadCpuMs: median(samples[m].map((s) => s.loadCpuMs)), windowCpuUs: median(samples[m].map((s) => s.windowCpuUs)) }]),
  ) as Record<Mode, Sample>;
  const ratios = {
    savedOverPluginLoad: ratio(medians.saved.loadCpuMs, medians.plugin.loadCpuMs),
    savingOverPluginLoad: ratio(medians.saving.loadCpuMs, medians.plugin.loadCpuMs),
    savedOverPluginWindow: ratio(medians.saved.windowCpuUs, medians.plugin.windowCpuUs),
  };
  console.log(`medians of ${samplesEach}:`);
  for (const m of MODES) console.log(`  ${m.padEnd(6)} load ${medians[m].loadCpuMs} ms CPU, ${medians[m].windowCpuUs} µs a window`);
  console.log(`saved / plugin: load ${ratios.savedOverPluginLoad}×, a window ${ratios.savedOverPluginWindow}×; saving / plugin: load ${ratios.savingOverPluginLoad}×`);
  const json = arg('--json');
  if (json) writeFileSync(json, JSON.stringify({ node: process.version, samplesEach, windows: WINDOWS, medians, ratios, samples }, null, 1));
}
