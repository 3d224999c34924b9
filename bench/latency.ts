/**
 * The latency half of the benchmark: every (scenario, LLM rate, repetition) trace is spoken by
 * every strategy. Lanes stand for concurrent calls: each lane owns one TTS per strategy (so the
 * paced one learns from its own call's turns, as in production) and speaks its turns one after
 * another; lanes of all languages and rates run side by side to keep the wall time short. Lanes
 * are shared out by estimated work and filled longest job first, so they finish together.
 */
import { type Floor, floorOf } from './floor.js';
import { type Trace, makeTrace, seededRandom } from './llm.js';
import { simulatePlayout } from './playout.js';
import type { Language, Scenario } from './scenarios.js';
import type { RemoteServers } from './servers.js';
import { type Strategy, type StrategyName, type TurnOutcome, createStrategy } from './strategies.js';

export interface LatencyConfig {
  scenarios: readonly Scenario[];
  strategies: readonly StrategyName[];
  tokensPerSecond: readonly number[];
  reps: number;
  /** Concurrent calls in total, shared among the language x rate groups by their work. */
  lanes: number;
  /** Used only to estimate how long a turn takes, for sharing out the lanes. */
  realTimeFactor: number;
  msPerChar: Record<Language, number>;
  firstTokenMs: number;
  firstByteMs: number;
  llmJitter: number;
  gapToleranceMs: number;
  sampleRate: number;
  turnTimeoutMs: number;
  seed: number;
}

export interface TurnRecord {
  /** The call (lane) that spoke the turn, and when the turn started (ms since the run began). */
  lane: number;
  startedMs: number;
  scenario: string;
  language: Language;
  tokensPerSecond: number;
  strategy: StrategyName;
  rep: number;
  ttfaMs: number;
  floorMs: number;
  certainMs: number;
  underruns: number;
  underrunMs: number;
  chunks: number;
  audioMs: number;
  llmEndMs: number;
  /** Where each underrun fell (audio ms played before it) and its length. */
  gaps: Array<{ afterAudioMs: number; ms: number }>;
  pacing?: TurnOutcome['pacing'];
}

interface Job {
  scenario: Scenario;
  rep: number;
  strategy: StrategyName;
  trace: Trace;
  floor: Floor;
  estimatedMs: number;
}

/**
 * A turn ends when the provider has generated the last audio: for naive all of it after the LLM
 * is done; otherwise the later of the LLM's end plus the last chunk's generation and the whole
 * reply's generation (one context generates its pieces one after another).
 */
function estimateMs(scenario: Scenario, strategy: StrategyName, trace: Trace, config: LatencyConfig): number {
  const generationMs = config.realTimeFactor * scenario.reply.length * config.msPerChar[scenario.language];
  const end =
    strategy === 'naive'
      ? trace.endMs + generationMs
      : Math.max(trace.endMs + 0.3 * generationMs, config.firstTokenMs + generationMs);
  return end + config.firstByteMs + 200;
}

export async function runLatency(
  config: LatencyConfig,
  servers: RemoteServers,
  onTurn: (done: number, total: number) => void,
): Promise<TurnRecord[]> {
  const groups: Array<{ language: Language; tps: number; jobs: Job[] }> = [];
  for (const language of ['ko', 'en'] as const) {
    const scenarios = config.scenarios.filter((s) => s.language === language);
    if (scenarios.length === 0) continue;
    for (const tps of config.tokensPerSecond) {
      const jobs: Job[] = [];
      for (let rep = 0; rep < config.reps; rep++) {
        for (const [index, scenario] of scenarios.entries()) {
          const trace = makeTrace(scenario.reply, language, {
            firstTokenMs: config.firstTokenMs,
            tokensPerSecond: tps,
            jitter: config.llmJitter,
            // Steady traces are identical across repetitions; jittered ones differ per repetition.
            seed: config.seed + index * 7919 + (config.llmJitter > 0 ? rep * 104_729 : 0),
          });
          const floor = floorOf(trace, config.firstByteMs);
          for (const strategy of config.strategies) {
            jobs.push({ scenario, rep, strategy, trace, floor, estimatedMs: estimateMs(scenario, strategy, trace, config) });
          }
        }
      }
      groups.push({ language, tps, jobs });
    }
  }
  const total = groups.reduce((n, g) => n + g.jobs.length, 0);
  const records: TurnRecord[] = [];
  let done = 0;
  const work = groups.map((g) => g.jobs.reduce((n, j) => n + j.estimatedMs, 0));
  const totalWork = work.reduce((a, b) => a + b, 0);
  const lanes: Promise<void>[] = [];
  const runStart = performance.now();
  const laneCounts = groups.map((group, g) => Math.max(1, Math.round((config.lanes * work[g]!) / totalWork)));
  const warm = warmUpBarrier(laneCounts.reduce((a, b) => a + b, 0));
  groups.forEach((group, g) => {
    const count = laneCounts[g]!;
    const random = seededRandom(config.seed + group.tps + (group.language === 'ko' ? 1 : 2));
    for (const jobs of shareOut(group.jobs, count)) {
      // Mixed order within a call: the paced strategy learns from varied replies, not a sorted run.
      shuffle(jobs, random);
      const lane = lanes.length;
      lanes.push(
        runLane(group.language, group.tps, jobs, config, servers, config.seed * 1009 + lane, warm, (record) => {
          records.push({ ...record, lane, startedMs: Math.round(record.startedMs - runStart) });
          onTurn(++done, total);
        }),
      );
    }
  });
  await Promise.all(lanes);
  return records;
}

/** Longest-processing-time-first: each job goes to the lane with the least estimated work so far. */
function shareOut(jobs: readonly Job[], lanes: number): Job[][] {
  const out = Array.from({ length: lanes }, () => ({ jobs: [] as Job[], ms: 0 }));
  for (const job of [...jobs].sort((a, b) => b.estimatedMs - a.estimatedMs)) {
    const lightest = out.reduce((a, b) => (b.ms < a.ms ? b : a));
    lightest.jobs.push(job);
    lightest.ms += job.estimatedMs;
  }
  return out.map((l) => l.jobs);
}

async function runLane(
  language: Language,
  tps: number,
  jobs: Job[],
  config: LatencyConfig,
  servers: RemoteServers,
  laneSeed: number,
  warm: WarmUpBarrier,
  record: (r: Omit<TurnRecord, 'lane'>) => void,
): Promise<void> {
  const baseURL = servers.urls[language];
  if (!baseURL) throw new Error(`no server for ${language}`);
  const strategies = new Map<StrategyName, Strategy>();
  for (const name of config.strategies) {
    strategies.set(name, createStrategy(name, { language, baseURL, sampleRate: config.sampleRate, turnTimeoutMs: config.turnTimeoutMs }));
  }
  let arrived = false;
  try {
    await Promise.all([...strategies.values()].map((s) => s.prewarm()));
    // Two unmeasured turns per strategy, like a call's greeting and first answer: sockets open,
    // code paths compiled, the pacer's estimates seeded.
    for (const warmup of config.scenarios.filter((s) => s.language === language).slice(0, 2)) {
      const warmTrace = makeTrace(warmup.reply, language, {
        firstTokenMs: config.firstTokenMs,
        tokensPerSecond: tps,
        jitter: 0,
        seed: config.seed,
      });
      await Promise.all([...strategies.values()].map((s) => s.speak(warmTrace, performance.now())));
    }
    // No measured turn while another call is still opening sockets and compiling code paths.
    arrived = true;
    await warm.arrive();
    const pause = seededRandom(laneSeed);
    for (const job of jobs) {
      const strategy = strategies.get(job.strategy)!;
      // The caller's next utterance: calls are not phase-locked, so neither are the lanes. Without
      // it every lane starts its turns in the same millisecond after identical warm-ups, and the
      // bench measures its own event-loop bursts instead of the pipeline.
      await new Promise((resolve) => setTimeout(resolve, TURN_PAUSE_MIN_MS + pause() * TURN_PAUSE_SPREAD_MS));
      const startedMs = performance.now();
      const outcome = await strategy.speak(job.trace, startedMs);
      const counts = await servers.chunkCounts(outcome.contextIds);
      const audible = outcome.frames.filter((f) => f.ms > 0.1);
      const playout = simulatePlayout(audible, config.gapToleranceMs);
      record({
        startedMs,
        scenario: job.scenario.name,
        language,
        tokensPerSecond: tps,
        strategy: job.strategy,
        rep: job.rep,
        ttfaMs: audible[0]?.at ?? Number.NaN,
        floorMs: job.floor.floorMs,
        certainMs: job.floor.certainMs,
        underruns: playout.underruns,
        underrunMs: playout.underrunMs,
        chunks: Object.values(counts).reduce((a, b) => a + b, 0),
        audioMs: playout.audioMs,
        llmEndMs: job.trace.endMs,
        gaps: playout.gaps.map((g) => ({ afterAudioMs: Math.round(g.afterAudioMs), ms: Math.round(g.ms) })),
        ...(outcome.pacing ? { pacing: outcome.pacing } : {}),
      });
    }
  } finally {
    if (!arrived) warm.leave();
    await Promise.all([...strategies.values()].map((s) => s.close().catch(() => {})));
  }
}

interface WarmUpBarrier {
  /** Resolves once every lane has arrived (a lane that fails to warm up must still arrive). */
  arrive(): Promise<void>;
  /** Lets the others go on without a lane that failed before arriving. */
  leave(): void;
}

function warmUpBarrier(parties: number): WarmUpBarrier {
  let waiting = parties;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const count = () => {
    if (--waiting === 0) open();
  };
  return {
    arrive: () => {
      count();
      return opened;
    },
    leave: count,
  };
}

const TURN_PAUSE_MIN_MS = 50;
const TURN_PAUSE_SPREAD_MS = 250;

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
