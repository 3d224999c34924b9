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
import { simulatePlayout } from './playout.js';
import type { Condition, Language, Provider, Scenario } from './scenarios.js';
import { type RemoteServers, serverName } from './servers.js';
import { type Strategy, type StrategyName, type TurnOutcome, createStrategy, speaks } from './strategies.js';

export interface LatencyConfig {
  scenarios: readonly Scenario[];
  strategies: readonly StrategyName[];
  conditions: readonly Condition[];
  providers: readonly Provider[];
  reps: number;
  /** Concurrent calls in total, shared among the language x rate groups by their work. */
  lanes: number;
  /** Used only to estimate how long a turn takes, for sharing out the lanes. */
  realTimeFactor: number;
  msPerChar: Record<Language, number>;
  firstTokenMs: number;
  firstByteMs: number;
  gapToleranceMs: number;
  sampleRate: Record<Provider, number>;
  turnTimeoutMs: number;
  seed: number;
}

export interface TurnRecord {
  /** The call (lane) that spoke the turn, and when the turn started (ms since the run began). */
  lane: number;
  startedMs: number;
  scenario: string;
  language: Language;
  provider: Provider;
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
  /** Texts sent to the provider (each a request, or a piece of a continued context). */
  chunks: number;
  /** Cuts inside the reply: chunks − 1. */
  boundaries: number;
  /** Frames carrying a request or context id an earlier turn of the same call already used. */
  staleFrames: number;
  /** Sockets opened for the turn (0 when a pooled one carried it). */
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
      if (scenarios.length === 0) continue;
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
            for (const strategy of config.strategies.filter((name) => speaks(name, provider))) {
              jobs.push({ scenario, rep, strategy, trace, floor, estimatedMs: estimateMs(scenario, strategy, trace, config) });
            }
          }
        }
        if (jobs.length) groups.push({ provider, language, condition, jobs });
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
        runLane(group, jobs, config, servers, config.seed * 1009 + lane, warm, (record) => {
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

/** What one call has seen of each strategy: ids its audio carried, connections its text used. */
class CallMemory {
  readonly #ids = new Map<StrategyName, Set<string>>();
  readonly #connections = new Map<StrategyName, Set<number>>();

  /** Frames whose id an earlier turn already used; then remembers this turn's ids. */
  staleFrames(strategy: StrategyName, outcome: TurnOutcome): number {
    const seen = this.#ids.get(strategy) ?? new Set<string>();
    this.#ids.set(strategy, seen);
    const stale = outcome.frameIds.filter((id) => seen.has(id)).length;
    for (const id of outcome.contextIds) seen.add(id);
    return stale;
  }

  /** Connections never used before by this strategy in this call (sockets it opened). */
  newConnections(strategy: StrategyName, connections: Iterable<number>): number {
    const seen = this.#connections.get(strategy) ?? new Set<number>();
    this.#connections.set(strategy, seen);
    let opened = 0;
    for (const c of new Set(connections)) {
      if (!seen.has(c)) opened++;
      seen.add(c);
    }
    return opened;
  }
}

async function runLane(
  group: Group,
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
  const setup = { provider, language, baseURL, sampleRate: config.sampleRate[provider], turnTimeoutMs: config.turnTimeoutMs };
  for (const name of config.strategies.filter((n) => speaks(n, provider))) strategies.set(name, createStrategy(name, setup));
  const memory = new CallMemory();
  /** What the provider was sent: the driver counts its own texts; the plugin's are counted by the server. */
  const sent = async (strategy: StrategyName, outcome: TurnOutcome) => {
    if (outcome.sentPieces !== undefined) return { chunks: outcome.sentPieces, socketsOpened: outcome.socketsOpened ?? 0 };
    const { counts, connections } = await servers.chunkCounts(outcome.contextIds);
    const chunks = Object.values(counts).reduce((a, b) => a + b, 0);
    return { chunks, socketsOpened: memory.newConnections(strategy, Object.values(connections)) };
  };
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
      await Promise.all(
        [...strategies.values()].map(async (s) => {
          const outcome = await s.speak(warmTrace, performance.now());
          memory.staleFrames(s.name, outcome);
          await sent(s.name, outcome);
        }),
      );
    }
    // No measured turn while another call is still opening sockets and compiling code paths.
    arrived = true;
    await warm.arrive();
    const pause = seededRandom(laneSeed);
    // The warm-up ran every call's strategies at once (hundreds of streams): what the pacer measured
    // then (a first byte and a real-time factor several times the server's) says more about that
    // stampede than about the provider. Two more unmeasured turns, one strategy at a time as below,
    // let its estimates settle on the running system, as a call's first answers would.
    const settling = config.scenarios.filter((s) => s.language === language).slice(2, 4);
    for (const scenario of settling) {
      const trace = makeTrace(scenario.reply, language, { ...condition, firstTokenMs: config.firstTokenMs, seed: config.seed + 1 });
      for (const strategy of strategies.values()) {
        await new Promise((resolve) => setTimeout(resolve, TURN_PAUSE_MIN_MS + pause() * TURN_PAUSE_SPREAD_MS));
        const outcome = await strategy.speak(trace, performance.now());
        memory.staleFrames(strategy.name, outcome);
        await sent(strategy.name, outcome);
      }
    }
    for (const job of jobs) {
      const strategy = strategies.get(job.strategy)!;
      // The caller's next utterance: calls are not phase-locked, so neither are the lanes. Without
      // it every lane starts its turns in the same millisecond after identical warm-ups, and the
      // bench measures its own event-loop bursts instead of the pipeline.
      await new Promise((resolve) => setTimeout(resolve, TURN_PAUSE_MIN_MS + pause() * TURN_PAUSE_SPREAD_MS));
      const startedMs = performance.now();
      const outcome = await strategy.speak(job.trace, startedMs);
      const { chunks, socketsOpened } = await sent(job.strategy, outcome);
      const audible = outcome.frames.filter((f) => f.ms > 0.1);
      const playout = simulatePlayout(audible, config.gapToleranceMs);
      record({
        startedMs,
        scenario: job.scenario.name,
        language,
        provider,
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
        chunks,
        boundaries: Math.max(0, chunks - 1),
        staleFrames: memory.staleFrames(job.strategy, outcome),
        socketsOpened,
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
