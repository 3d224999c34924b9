import { type ChunkerOptions, type SpeechOptions, normalizeForSpeech, toSsml } from '../chunking/index.js';
import type { AdaptiveFirstChunkOptions, AdaptivePriors } from '../latency/adaptive.js';
import type { SocketPoolOptions } from './pool.js';

/** The chunker's options, plus the TTS-level adaptive first chunk. */
export interface TTSChunkingOptions extends ChunkerOptions {
  /**
   * Size each reply's first chunk from running estimates of the LLM's rate and the provider's
   * latency and speed, so its playback covers chunk 2 (src/latency/adaptive.ts). Replaces
   * `firstChunkTargetChars` per stream; `asymmetric` policy only. @defaultValue false
   */
  adaptive?: boolean | (Partial<Omit<AdaptiveFirstChunkOptions, 'priors'>> & { priors?: Partial<AdaptivePriors> });
}

/** Options every provider shares (the driver's knobs). */
export interface DriverOptions {
  /** Chunking policy and limits (see src/chunking). */
  chunking: TTSChunkingOptions;
  /** Audio frame length handed to LiveKit, in ms. Short frames mean earlier first audio. */
  frameMs: number;
  /** Turns a chunk's display text into what the provider should read (e.g. number reading). */
  prepareText?: (text: string) => string;
}

export const DEFAULT_DRIVER_OPTIONS: DriverOptions = {
  chunking: {},
  frameMs: 20,
};

export type PoolTuning = Partial<SocketPoolOptions>;

/** How chunk text becomes provider text: a custom function, SSML, spoken-form normalization, or as is. */
export interface SpeechPreparation {
  /** Spoken-form rewriting (numbers, dates, aliases); `false` sends the text as written. */
  speech: SpeechOptions | false;
  /** Send `<speak>` SSML built from the same decisions (providers that accept SSML). */
  ssml?: boolean;
  /** Overrides both. */
  prepareText?: (text: string) => string;
}

export function speechPreparer(p: SpeechPreparation): ((text: string) => string) | undefined {
  if (p.prepareText) return p.prepareText;
  if (p.ssml) {
    const opts = p.speech === false ? {} : p.speech;
    return (text) => toSsml(text, opts);
  }
  if (p.speech === false) return undefined;
  const opts = p.speech;
  return (text) => normalizeForSpeech(text, opts);
}
