/**
 * The TTS plugin's public surface (the package's `.` export): the two providers, their base class
 * and the types their options and events use. Everything else in this folder is internal.
 */
export { FirstwordTTS } from './base.js';
export { ResembleTTS, RESEMBLE_SAMPLE_RATES, type ResembleTTSOptions } from './resemble.js';
export { CartesiaTTS, CARTESIA_SAMPLE_RATES, type CartesiaTTSOptions } from './cartesia.js';
export type { FirstwordTTSOptions, TTSChunkingOptions } from './options.js';
export type { PoolStats } from './pool.js';
export type { SocketPoolOptions } from './pool-options.js';
export type { ConnectionBudget, ConnectionLease } from './connection-budget.js';
export type { DriverStream } from './stream.js';
export type { TimelineEvents } from './timeline.js';
export type { PacingEstimates, PacingOptions, PacingPriors, PacingSettings } from '../latency/pacing-estimates.js';
export type { FirstRelease, PacingReport } from '../latency/pacer.js';
