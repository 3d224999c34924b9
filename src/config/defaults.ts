import type { AckMode, MetricsHost, TurnSettings } from './types.js';

/**
 * How long a stopping worker waits for live calls to end before it hangs up on them.
 * Process managers must allow more than this (see ecosystem.config.cjs, deploy/, Dockerfile).
 */
export const DEFAULT_DRAIN_TIMEOUT_S = 1800;

/**
 * How long a job process may take from fork to ready (loading the agent's modules and Silero's
 * model) before the worker kills it and forks another. The framework's 10 s is a livelock on a
 * starved host: every process that would have been ready in 15 s is killed at 10 s and the next
 * one starts from nothing, so calls already accepted wait for a process that never comes. A
 * process that is slow to start is still the quickest way to a ready one.
 */
export const JOB_PROCESS_START_TIMEOUT_MS = 120_000;

/**
 * glibc malloc arenas per job process. glibc gives each thread that allocates an arena of its own,
 * up to eight per core, and a call's process runs dozens (WebRTC's, rtc-node's Rust runtime,
 * onnxruntime's, V8's), so memory one thread freed sits unused in its arena. With two, a call's
 * process was 3-13 MB PSS smaller at the same CPU (docs/benchmarks/2026-12-06-memory.md).
 */
export const JOB_MALLOC_ARENAS = 2;

/**
 * The framework's event-loop stall report, in every job process and the worker's main process:
 * stalls this long are logged. The framework ticks a timer at a fifth of it (at least 20 ms, at most
 * 50 ms) and runs a watchdog thread ticking alike, idle processes included: at its own 100 ms an
 * idle prewarmed job process uses 3.4 % of a core, at 250 ms 2.2 %, off 0.9 %
 * (docs/benchmarks/2026-12-07-loop-monitor.md). A stall of 250 ms is what a caller hears as a gap.
 */
export const LOOP_BLOCK_WARN_MS = 250;

/**
 * CPU a live, talking call needs of its host, in cores: the whole machine's busy CPU divided by
 * its calls at the last step of a ladder before callers heard the load (first-sound p90 1.23x the
 * 1-call step at 3 calls on an idle 2-core host; 5 and 6 calls were 4.3x and 3.0x), measured
 * 2026-12-06 (docs/benchmarks/2026-12-06-memory.md). The worker alone used 0.26 of it (its start-ups
 * included), the SFU and the test callers the rest: on a host of its own the worker needs less, so
 * the cap this gives errs on the side of the callers already live.
 */
export const CALL_CPU_CORES = 0.37;

/**
 * Share of the host's CPU calls may use before the worker reports itself full, in percent. In the
 * same ladder, first-sound p90 was 1.12x the 1-call step's at 59 % of the machine busy (2 calls)
 * and 2.30x at 91 % (4 calls); 70 % lies between, and it is the framework's own threshold.
 */
export const DEFAULT_CPU_BUDGET_PERCENT = 70;

/**
 * AGENT_MAX_CALLS when unset: the calls whose cost fits the CPU budget, at least one. (The epsilon
 * keeps a quotient that is whole on paper from rounding down to one less in floating point.)
 */
export function defaultMaxCalls(cores: number, budgetPercent = DEFAULT_CPU_BUDGET_PERCENT): number {
  return Math.max(1, Math.floor((cores * budgetPercent) / 100 / CALL_CPU_CORES + 1e-9));
}

export const CONFIG_DEFAULTS = {
  llmModel: 'gpt-4.1-mini',
  /**
   * OpenAI's live model, the plugin's own default: words while the caller speaks, the final at our
   * commit (src/stt). bench:turn (docs/latency.md, "Live speech-to-text"): first sound and content
   * no longer wait for OpenAI's server VAD and final.
   */
  sttModel: 'gpt-realtime-whisper',
  localPort: 0,
  /** Resemble documents 20 parallel connections per API key (Cartesia: 10x the plan's concurrency). */
  maxSocketsPerKey: 20,
  chunkPolicy: 'asymmetric',
  /** The caller hears an acknowledgement at the predicted end of the turn, long before the reply (docs/latency.md). */
  ackMode: 'early' as AckMode,
  ackSlowMs: 600,
  /**
   * The framework's 500 ms of caller speech before a barge-in keeps the agent talking over the
   * caller; 150 stops it about twice as fast without stopping on a cough (figures: docs/latency.md).
   */
  bargeInMinSpeechMs: 150,
  /**
   * Turn taking: Silero's end of speech after a short silence, then the transcript detector
   * decides whether the words make a whole turn. A shorter silence split real callers' sentences
   * into two turns; a longer one only adds to every wait. `minDelayMs` costs nothing because the
   * reply's audio is not ready sooner anyway; `maxDelayMs` waits out a 1 s pause after unfinished
   * words without making a misjudged finished turn wait long. How each value was chosen, with the
   * figures: docs/latency.md, "Why the defaults". The delays are the transcript detector's:
   * TURN_DETECTOR=combined starts from its own floor and bound (src/turn/turn-decision.ts).
   */
  turn: { silenceMs: 250, minDelayMs: 300, maxDelayMs: 1500, detector: 'transcript', preemptive: true, wordLagMs: 300, earlyFinal: true } satisfies TurnSettings as TurnSettings,
  metricsHost: '127.0.0.1' as MetricsHost,
  webHost: '127.0.0.1',
  webPort: 3000,
  /** Long enough to join; LiveKit refreshes a connected caller's token itself. */
  webTokenTtlS: 120,
  /** Token requests per minute (and at once) per client address / per signed-in user. */
  webRatePerAddress: 10,
  webRatePerUser: 10,
  sipSampleRate: 16000,
  sipLanguage: 'en',
  sipTrunkName: 'firstword-inbound',
  sipDispatchRuleName: 'firstword-dispatch',
  sipRoomPrefix: 'call-',
  drainTimeoutS: DEFAULT_DRAIN_TIMEOUT_S,
  logLevel: 'info',
} as const;
