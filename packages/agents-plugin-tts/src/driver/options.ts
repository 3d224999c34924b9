import { type ChunkerOptions, type SpeechOptions, normalizeForSpeech, toSsml } from '../chunking/index.js';
import type { PacingEstimates, PacingSettings } from '../pacing/pacing-estimates.js';
import type { ProviderShape } from '../pacing/pacing-model.js';
import { providerUrl } from '../protocol/connect.js';
import type { ConnectionBudget } from '../budget/connection-budget.js';
import { type SocketPoolOptions, checkTimerMs } from '../transport/pool-options.js';
import { defaultMaxFrameMs } from '../pcm/framer.js';

/** The chunker's options, plus the TTS-level pacer. */
export interface TTSChunkingOptions extends Omit<ChunkerOptions, 'paced'> {
  /**
   * The pacer (src/pacing/pacer.ts, `asymmetric` policy only): the first clause goes at once when
   * its audio covers the text still to come at the LLM's measured pace, else a few words later;
   * later text in sentences, with an early piece where the audio would otherwise run out (on a
   * provider without continuation, at most one cut inside a sentence per reply). Settings tune
   * its priors and margins; `false` leaves the chunker's own first-clause rule, which pauses after
   * "Sure," on a slow LLM. @defaultValue on
   */
  pacing?: false | PacingSettings;
}

/** Options every firstword provider takes; each provider adds its own (voice, model…). */
export interface FirstwordTTSOptions {
  /** @defaultValue the provider's key variable (RESEMBLE_API_KEY, CARTESIA_API_KEY) */
  apiKey?: string;
  /** Output sample rate asked of the provider; one of its documented rates. */
  sampleRate: number;
  /** Chunking policy and limits (see src/chunking). @defaultValue asymmetric */
  chunking: TTSChunkingOptions;
  /** The provider's endpoint; plain ws:// or http:// only to loopback unless `allowInsecure`. */
  baseURL: string;
  /** Word timestamps → `TimedString`s on the frames (aligned transcripts). @defaultValue the provider's (its descriptor's `wordTimestamps`) */
  wordTimestamps: boolean;
  /** Audio frame length handed to LiveKit, in ms. Short frames mean earlier first audio. @defaultValue 20 */
  frameMs: number;
  /**
   * Audio already in hand leaves in frames of up to this many ms (whole multiples of `frameMs`):
   * each frame costs the same on LiveKit's per-frame path whatever its length, and no frame waits
   * for audio that has not come. `frameMs` turns it off.
   * @defaultValue the larger of `frameMs` and 100 (LiveKit's own plugins' frame)
   */
  maxFrameMs?: number;
  /**
   * Audio (ms, 0-2000) gathered before a stream's first frame plays, so a provider's delivery gaps
   * do not reach the listener; costs up to that much first audio. 0 turns it off.
   * @defaultValue the provider's own (`ProviderCodec.startBufferMs`: Resemble's bursts get one, Cartesia none)
   */
  startBufferMs?: number;
  /** Spoken-form normalization of numbers, dates and aliases (Korean/English); `false` disables it. @defaultValue {} */
  speech: SpeechOptions | false;
  /** Custom text preparation; overrides `speech` (and SSML where the provider has it). */
  prepareText?: (text: string) => string;
  /** @defaultValue 10000 */
  connectTimeoutMs: number;
  /** Permit ws:// or http:// to a non-loopback host (keys would travel in clear text). @defaultValue false */
  allowInsecure: boolean;
  /** Socket pool tuning (see pool-options.ts). */
  pool: Partial<SocketPoolOptions>;
  /**
   * Sockets this API key may hold beyond this instance (every job process of a worker shares one
   * through the lease service). Unset: the pool's `maxSockets` alone bounds it.
   */
  connectionBudget?: ConnectionBudget;
}

export const FIRSTWORD_TTS_DEFAULTS = {
  chunking: {},
  frameMs: 20,
  speech: {},
  connectTimeoutMs: 10_000,
  allowInsecure: false,
  pool: {},
} satisfies Partial<FirstwordTTSOptions>;

/** A longer start buffer is a first-audio delay no burst pattern justifies. */
export const MAX_START_BUFFER_MS = 2000;

/** What the shared driver takes from those options. */
export interface DriverOptions {
  chunking: TTSChunkingOptions;
  /** Set per stream by the TTS when the pacer is on. */
  pacing?: { shape: ProviderShape; estimates: PacingEstimates };
  frameMs: number;
  maxFrameMs: number;
  /** Overrides the codec's `startBufferMs`. */
  startBufferMs?: number;
  /** Turns a chunk's display text into what the provider should read (e.g. number reading). */
  prepareText?: (text: string) => string;
}

/** The facts about a provider that checking its options needs (a part of its descriptor). */
export interface ProviderFacts {
  /** Shown in errors: `Resemble`, `Cartesia`. */
  readonly name: string;
  /** The variable the key falls back to, named when it is missing. */
  readonly keyVariable: string;
  readonly sampleRates: readonly number[];
}

/**
 * Checks the options every provider shares and resolves the key: absurd values fail here rather
 * than in production (0 ms frames loop forever, a NaN timeout never fires).
 */
export function checkSharedOptions(facts: ProviderFacts, opts: FirstwordTTSOptions): string {
  const apiKey = opts.apiKey ?? process.env[facts.keyVariable];
  if (!apiKey) throw new Error(`${facts.name} API key is required: pass apiKey or set ${facts.keyVariable}`);
  if (!facts.sampleRates.includes(opts.sampleRate)) {
    throw new Error(`${facts.name} sampleRate must be one of ${facts.sampleRates.join(', ')} (got ${opts.sampleRate})`);
  }
  if (!Number.isFinite(opts.frameMs) || opts.frameMs < 1 || opts.frameMs > 1000) {
    throw new Error(`frameMs must be between 1 and 1000 (got ${String(opts.frameMs)})`);
  }
  const longest = opts.maxFrameMs;
  if (longest !== undefined && (typeof longest !== 'number' || !Number.isFinite(longest) || longest < opts.frameMs || longest > 1000)) {
    throw new Error(`maxFrameMs must be between frameMs (${opts.frameMs}) and 1000 (got ${String(longest)})`);
  }
  checkTimerMs('connectTimeoutMs', opts.connectTimeoutMs);
  const hold = opts.startBufferMs;
  if (hold !== undefined && (typeof hold !== 'number' || !Number.isFinite(hold) || hold < 0 || hold > MAX_START_BUFFER_MS)) {
    throw new Error(`startBufferMs must be between 0 and ${MAX_START_BUFFER_MS} ms (got ${String(hold)})`);
  }
  return apiKey;
}

/** The provider's URL for `path`, refusing plain-text schemes to remote hosts unless allowed. */
export function endpoint(opts: Pick<FirstwordTTSOptions, 'baseURL' | 'allowInsecure'>, path: string, scheme: 'ws' | 'http'): string {
  return providerUrl(opts.baseURL, path, scheme, opts.allowInsecure);
}

/** How chunk text becomes provider text: a custom function, SSML, spoken-form normalization, or as is. */
function speechPreparer(p: { speech: SpeechOptions | false; ssml?: boolean; prepareText?: (text: string) => string }):
  | ((text: string) => string)
  | undefined {
  if (p.prepareText) return p.prepareText;
  if (p.ssml) {
    const opts = p.speech === false ? {} : p.speech;
    return (text) => toSsml(text, opts);
  }
  if (p.speech === false) return undefined;
  const opts = p.speech;
  return (text) => normalizeForSpeech(text, opts);
}

export function driverOptions(opts: FirstwordTTSOptions & { ssml?: boolean }): DriverOptions {
  return { chunking: opts.chunking, frameMs: opts.frameMs, maxFrameMs: opts.maxFrameMs ?? defaultMaxFrameMs(opts.frameMs), startBufferMs: opts.startBufferMs, prepareText: speechPreparer(opts) };
}
