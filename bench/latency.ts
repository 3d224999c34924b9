/**
 * The latency half of the benchmark: every (scenario, LLM condition, repetition) trace is spoken
 * by every strategy against every provider's server. Lanes stand for concurrent calls: each lane
 * owns one TTS per strategy (so the paced one learns from its own call's turns, as in production)
 * and speaks its turns one after another; lanes of all providers, languages and conditions run
 * side by side to keep the wall time short. Lanes are shared out by estimated work and filled
 * longest job first, so they finish together.
 */
import { type Floor, floorOf } from './floor.js';
import { type Trace, makeTrace, seededRandom } from './llm.js';
import { type Provider, SAMPLE_RATES } from './peers/catalog.js';
import { clientKey, serverName } from './peers/providers.js';
import { simulatePlayout } from './playout.js';
import type { Condition, Language, Scenario } from './scenarios.js';
import type { RemoteServers } from './servers.js';
import { type Strategy, type StrategyName, type TurnOutcome, createStrategy, providersOf } from './strategies.js';

export interface LatencyConfig {
  scenarios: readonly Scenario[];
  /** Each provider speaks every strategy of the list that speaks it (strategies.ts providersOf). */
  providers: readonly Provider[];
  strategies: readonly StrategyName[];
  conditions: readonly Condition[];
  reps: number;
  /** Concurrent calls in total, shared among the language x rate groups by their work. */
  lanes: number;
  /** Used only to estimate how long a turn takes, for sharing out the lanes. */
  realTimeFactor: number;
  msPerChar: Record<Language, number>;
  firstTokenMs: number;
  firstByteMs: number;
  gapToleranceMs: number;
  turnTimeoutMs: number;
  seed: number;
}

export interface TurnRecord {
  /** The call (lane) that spoke the turn, and when the turn started (ms since the run began). */
  lane: number;
  startedMs: number;
  provider: Provider;
  scenario: string;
  language: Language;
  tokensPerSecond: number;
  jitter: number;
  strategy: StrategyName;
  rep: number;
  ttfaMs: number;
  floorMs: number;
  certainMs: number;
  /** The first-clause rule's first chunk of this reply. */
  firstClause: string;
  underruns: number;
  underrunMs: number;
  /** Texts the provider server received from this client for the turn (requests, or pieces of a continued context). */
  chunks: number;
  /** Cuts inside the reply: chunks − 1. */
  boundaries: number;
  /** Sockets the provider server saw this client open since its previous turn (count at the server). */
  socketsOpened: number;
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

interface Group {
  provider: Provider;
  language: Language;
  condition: Condition;
  /** The strategies of the run that speak this provider. */
  strategies: readonly StrategyName[];
  jobs: Job[];
}

export async function runLatency(
  config: LatencyConfig,
  servers: RemoteServers,
  onTurn: (done: number, total: number) => void,
): Promise<TurnRecord[]> {
  const groups: Group[] = [];
  for (const provider of config.providers) {
    for (const language of ['ko', 'en'] as const) {
      const scenarios = config.scenarios.filter((s) => s.language === language);
      const strategies = config.strategies.filter((name) => providersOf(name).includes(provider));
      if (scenarios.length === 0 || strategies.length === 0) continue;
      for (const condition of config.conditions) {
        const jobs: Job[] = [];
        for (let rep = 0; rep < config.reps; rep++) {
          for (const [index, scenario] of scenarios.entries()) {
            const trace = makeTrace(scenario.reply, language, {
              firstTokenMs: config.firstTokenMs,
              tokensPerSecond: condition.tokensPerSecond,
              jitter: condition.jitter,
              // Steady traces are identical across repetitions; jittered ones differ per repetition.
              // Both providers hear the same traces.
              seed: config.seed + index * 7919 + (condition.jitter > 0 ? rep * 104_729 : 0),
            });
            const floor = floorOf(trace, config.firstByteMs);
            for (const strategy of strategies) {
              jobs.push({ scenario, rep, strategy, trace, floor, estimatedMs: estimateMs(scenario, strategy, trace, config) });
            }
          }
        }
        if (jobs.length) groups.push({ provider, language, condition, strategies, jobs });
      }
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
    const random = seededRandom(config.seed + group.condition.tokensPerSecond + (group.language === 'ko' ? 1 : 2) + g * 31);
    for (const jobs of shareOut(group.jobs, count)) {
      // Mixed order within a call: the paced strategy learns from varied replies, not a sorted run.
      shuffle(jobs, random);
      const lane = lanes.length;
      lanes.push(
        runLane(group, lane, jobs, config, servers, config.seed * 1009 + lane, warm, (record) => {
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
  group: Group,
  lane: number,
  jobs: Job[],
  config: LatencyConfig,
  servers: RemoteServers,
  laneSeed: number,
  warm: WarmUpBarrier,
  record: (r: Omit<TurnRecord, 'lane'>) => void,
): Promise<void> {
  const { provider, language, condition } = group;
  const baseURL = servers.urls[serverName(provider, language)];
  if (!baseURL) throw new Error(`no ${provider} server for ${language}`);
  const strategies = new Map<StrategyName, Strategy>();
  const sampleRate = SAMPLE_RATES[provider];
  for (const name of group.strategies) {
    const setup = { provider, language, baseURL, apiKey: clientKey(name, lane), sampleRate, turnTimeoutMs: config.turnTimeoutMs };
    strategies.set(name, createStrategy(name, setup));
  }
  let arrived = false;
  try {
    await Promise.all([...strategies.values()].map((s) => s.prewarm()));
    // Two unmeasured turns per strategy, like a call's greeting and first answer: sockets open,
    // code paths compiled, the pacer's estimates seeded.
    for (const warmup of config.scenarios.filter((s) => s.language === language).slice(0, 2)) {
      const warmTrace = makeTrace(warmup.reply, language, {
        firstTokenMs: config.firstTokenMs,
        tokensPerSecond: condition.tokensPerSecond,
        jitter: 0,
        seed: config.seed,
      });
      // One strategy at a time, as one call speaks: seven warming up at once in every lane would
      // seed the pacer's estimates with a load no measured turn sees.
      for (const strategy of strategies.values()) await strategy.speak(warmTrace, performance.now());
    }
    // No measured turn while another call is still opening sockets and compiling code paths.
    arrived = true;
    await warm.arrive();
    const pause = seededRandom(laneSeed);
    // The warm-up ran every call at once (hundreds of streams): what the pacer measured
    // then (a first byte and a real-time factor several times the server's) says more about that
    // stampede than about the provider. Two more unmeasured turns, one strategy at a time as below,
    // let its estimates settle on the running system, as a call's first answers would.
    const settling = config.scenarios.filter((s) => s.language === language).slice(2, 4);
    for (const scenario of settling) {
      const trace = makeTrace(scenario.reply, language, { ...condition, firstTokenMs: config.firstTokenMs, seed: config.seed + 1 });
      for (const strategy of strategies.values()) {
        await new Promise((resolve) => setTimeout(resolve, TURN_PAUSE_MIN_MS + pause() * TURN_PAUSE_SPREAD_MS));
        await strategy.speak(trace, performance.now());
      }
    }
    // Sockets and requests are counted from here: the warm-up's and the settling's are not the turns'.
    await servers.usage(group.strategies.map((name) => clientKey(name, lane)));
    for (const job of jobs) {
      const strategy = strategies.get(job.strategy)!;
      // The caller's next utterance: calls are not phase-locked, so neither are the lanes. Without
      // it every lane starts its turns in the same millisecond after identical warm-ups, and the
      // bench measures its own event-loop bursts instead of the pipeline.
      await new Promise((resolve) => setTimeout(resolve, TURN_PAUSE_MIN_MS + pause() * TURN_PAUSE_SPREAD_MS));
      const startedMs = performance.now();
      const outcome = await strategy.speak(job.trace, startedMs);
      const key = clientKey(job.strategy, lane);
      const usage = (await servers.usage([key]))[key]!;
      const audible = outcome.frames.filter((f) => f.ms > 0.1);
      const playout = simulatePlayout(audible, config.gapToleranceMs);
      record({
        startedMs,
        provider,
        scenario: job.scenario.name,
        language,
        tokensPerSecond: condition.tokensPerSecond,
        jitter: condition.jitter,
        strategy: job.strategy,
        rep: job.rep,
        ttfaMs: audible[0]?.at ?? Number.NaN,
        floorMs: job.floor.floorMs,
        certainMs: job.floor.certainMs,
        firstClause: job.floor.firstClause,
        underruns: playout.underruns,
        underrunMs: playout.underrunMs,
        chunks: usage.requests,
        boundaries: Math.max(0, usage.requests - 1),
        socketsOpened: usage.socketsOpened,
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
