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

export const CONFIG_DEFAULTS = {
  llmModel: 'gpt-4.1-mini',
  sttModel: 'gpt-4o-transcribe',
  /** Cartesia's recommendation (docs: "We recommend using Sonic 3.5"). */
  cartesiaModel: 'sonic-3.5',
  localPort: 0,
  /** Resemble documents 20 parallel connections per API key (Cartesia: 10x the plan's concurrency). */
  maxSocketsPerKey: 20,
  chunkPolicy: 'asymmetric',
  /** bench:turn: the caller's first sound p50 327 ms with `early`, 627 ms (the reply) without. */
  ackMode: 'early' as AckMode,
  ackSlowMs: 600,
  /** bench:room: 500 (the framework's) → silent 691 ms p50 after the caller starts; 150 → 334 ms; 100 → 310 ms. */
  bargeInMinSpeechMs: 150,
  /**
   * Chosen by `npm run bench:turn`, the offline turn lab and the room tests (README, "The
   * caller's clock"): silence 250 ms → first sound p50 327 ms over 80 spoken turns (200: 288, but
   * in a real room with OpenAI's realtime STT, which commits its audio at each VAD end of speech,
   * 200 split a caller's 4 s sentence into two turns; 300: 386 on a third of the turns; Silero's
   * 550 with the framework's endpointing: 825), false ends only at pauses after already-whole
   * sentences (7.8 % of pauses ≤ 700 ms, the same at 200); minDelay 300 costs nothing (the reply's
   * audio is ready ~620 ms after the end of speech anyway); maxDelay 1500 waits out a 1 s pause
   * (1000 turned every clear 1 s pause into a false end in the lab) without making a finished turn
   * the detector misjudges wait 2.5 s.
   */
  turn: { silenceMs: 250, minDelayMs: 300, maxDelayMs: 1500, detector: 'transcript', preemptive: true } satisfies TurnSettings as TurnSettings,
  metricsHost: '127.0.0.1' as MetricsHost,
  webHost: '127.0.0.1',
  webPort: 3000,
  webTokenTtlS: 600,
  sipSampleRate: 16000,
  sipLanguage: 'en',
  sipTrunkName: 'firstword-inbound',
  sipDispatchRuleName: 'firstword-dispatch',
  sipRoomPrefix: 'call-',
  drainTimeoutS: DEFAULT_DRAIN_TIMEOUT_S,
  logLevel: 'info',
} as const;
