/**
 * Load test, in a process of its own so its CPU and memory accounts hold nothing but this: N
 * concurrent 24 kHz firstword streams (one CartesiaTTS and socket each, like N calls), every one
 * fed a reply by the simulated LLM. Reports CPU per second of audio, peak RSS and the latency the
 * streams kept under load. Driven over IPC by bench/load.ts.
 */
import { initializeLogger, tts } from '@livekit/agents';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CartesiaTTS } from '@firstword/agents-plugin-tts';
import { type Trace, makeTrace, replay } from './llm.js';
import { type ArrivedFrame, percentile, simulatePlayout } from './playout.js';
import { SCENARIOS } from './scenarios.js';

export interface LoadConfig {
  streams: number;
  urls: { ko: string; en: string };
  sampleRate: number;
  firstTokenMs: number;
  tokensPerSecond: number;
  /** Stream starts are spread over this window, as calls' turns would be. */
  staggerMs: number;
  gapToleranceMs: number;
  turnTimeoutMs: number;
}

export interface LoadResult {
  streams: number;
  sampleRate: number;
  maxConcurrent: number;
  wallMs: number;
  audioSeconds: number;
  cpuMs: number;
  /** CPU of the same LLM replay with a no-op sink: the harness's own share. */
  harnessCpuMs: number;
  cpuMsPerAudioSecond: number;
  netCpuMsPerAudioSecond: number;
  /** One core = 1000 ms of CPU per second: real-time 24 kHz streams it can carry. */
  streamsPerCore: number;
  baselineRssMb: number;
  peakRssMb: number;
  rssPerStreamKb: number;
  ttfaP50Ms: number;
  ttfaP90Ms: number;
  underruns: number;
  eventLoopDelayP99Ms: number;
  /** Streams that timed out or produced no audio. */
  failed: number;
}

function traces(config: LoadConfig): Array<{ trace: Trace; language: 'ko' | 'en' }> {
  return Array.from({ length: config.streams }, (_, i) => {
    const scenario = SCENARIOS[i % SCENARIOS.length]!;
    return {
      language: scenario.language,
      trace: makeTrace(scenario.reply, scenario.language, {
        firstTokenMs: config.firstTokenMs,
        tokensPerSecond: config.tokensPerSecond,
        jitter: 0,
        seed: i + 1,
      }),
    };
  });
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function harnessOnly(work: ReturnType<typeof traces>, config: LoadConfig): Promise<number> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  let sink = 0;
  await Promise.all(
    work.map(({ trace }, i) =>
      replay(trace, t0 + (i * config.staggerMs) / work.length, { push: (t) => (sink += t.length), end: () => {} }),
    ),
  );
  return sink >= 0 ? cpuMsSince(cpu) : 0;
}

export async function runLoad(config: LoadConfig): Promise<LoadResult> {
  initializeLogger({ pretty: false, level: 'error' });
  const work = traces(config);
  const engines = work.map(
    ({ language }) =>
      new CartesiaTTS({ apiKey: 'test-key', voice: 'bench-voice', baseURL: config.urls[language], sampleRate: config.sampleRate, language }),
  );
  await Promise.all(engines.map((e) => e.prewarm()));
  const harnessCpuMs = await harnessOnly(work, config);
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();

  let active = 0;
  let maxConcurrent = 0;
  let failed = 0;
  let timedOut = 0;
  const ttfa: number[] = [];
  let underruns = 0;
  let audioMs = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    work.map(async ({ trace }, i) => {
      const t0 = started + (i * config.staggerMs) / work.length;
      await new Promise((r) => setTimeout(r, Math.max(0, t0 - performance.now())));
      const stream = engines[i]!.stream();
      const frames: ArrivedFrame[] = [];
      active++;
      maxConcurrent = Math.max(maxConcurrent, active);
      const reading = (async () => {
        for await (const ev of stream) {
          if (ev === tts.SynthesizeStream.END_OF_STREAM) return;
          frames.push({ at: performance.now() - t0, ms: (ev.frame.samplesPerChannel * 1000) / ev.frame.sampleRate });
        }
      })();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.all([replay(trace, t0, { push: (t) => stream.pushText(t), end: () => stream.endInput() }), reading]),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('load turn timed out')), config.turnTimeoutMs);
          }),
        ]);
      } catch {
        timedOut++;
      } finally {
        clearTimeout(timer);
        stream.close();
        active--;
      }
      const audible = frames.filter((f) => f.ms > 0.1);
      if (audible[0]) ttfa.push(audible[0].at);
      else failed++;
      const playout = simulatePlayout(audible, config.gapToleranceMs);
      underruns += playout.underruns;
      audioMs += playout.audioMs;
    }),
  );
  const wallMs = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  clearInterval(sampler);
  loopDelay.disable();
  await Promise.all(engines.map((e) => e.close()));

  const audioSeconds = audioMs / 1000;
  const cpuMsPerAudioSecond = cpuMs / audioSeconds;
  const netCpuMsPerAudioSecond = Math.max(0, cpuMs - harnessCpuMs) / audioSeconds;
  return {
    streams: config.streams,
    sampleRate: config.sampleRate,
    maxConcurrent,
    wallMs,
    audioSeconds,
    cpuMs,
    harnessCpuMs,
    cpuMsPerAudioSecond,
    netCpuMsPerAudioSecond,
    streamsPerCore: 1000 / cpuMsPerAudioSecond,
    baselineRssMb: baselineRss / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    rssPerStreamKb: (peakRss - baselineRss) / 1024 / config.streams,
    ttfaP50Ms: percentile(ttfa, 50),
    ttfaP90Ms: percentile(ttfa, 90),
    underruns,
    eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    failed: failed + timedOut,
  };
}

if (process.send) {
  process.once('message', (config: LoadConfig) => {
    runLoad(config).then(
      (result) => process.send!({ type: 'result', result }, () => process.exit(0)),
      (error: unknown) => process.send!({ type: 'error', message: String(error) }, () => process.exit(1)),
    );
  });
}

