/**
 * The TTS plugin's public surface (the package's `.` export): the two providers, their base class
 * and the types their options and events use. The worker's connection budget
 * (`./budget`), the wire codecs for tools that probe a provider (`./protocol`), the chunker
 * (`./chunking`) and each provider's facts (`./providers`) are the other exports; everything else
 * is internal.
 */
export { FirstwordTTS } from './driver/base.js';
export { ResembleTTS, RESEMBLE_DEFAULTS, RESEMBLE_SAMPLE_RATES, type ResembleTTSOptions } from './providers/resemble/tts.js';
export { CartesiaTTS, CARTESIA_DEFAULTS, CARTESIA_SAMPLE_RATES, type CartesiaTTSOptions } from './providers/cartesia/tts.js';
export type { FirstwordTTSOptions, TTSChunkingOptions } from './driver/options.js';
export type { PoolStats } from './transport/pool.js';
export type { SocketPoolOptions } from './transport/pool-options.js';
export type { ConnectionBudget, ConnectionLease } from './budget/connection-budget.js';
export type { DriverStream } from './driver/stream.js';
export { StreamTimeline, type StreamObserver, type TimelineEvents } from './driver/timeline.js';
export { DEFAULT_PACING_OPTIONS, type PacingEstimates, type PacingOptions, type PacingPriors, type PacingSettings } from './pacing/pacing-estimates.js';
export type { FirstRelease, PacingReport } from './pacing/pacer.js';
