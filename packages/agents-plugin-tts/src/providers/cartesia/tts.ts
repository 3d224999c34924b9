import type { APIConnectOptions, tts } from '@livekit/agents';
import { FirstwordTTS } from '../../driver/base.js';
import { speakableText } from '../../driver/request-text.js';
import { CartesiaBytesStream } from './bytes.js';
import { CartesiaCodec } from './codec.js';
import { FIRSTWORD_TTS_DEFAULTS, type FirstwordTTSOptions, checkSharedOptions, driverOptions, endpoint } from '../../driver/options.js';
import { CARTESIA, type CartesiaVariable } from './descriptor.js';

/** Sample rates Cartesia serves (from its descriptor). */
export const CARTESIA_SAMPLE_RATES = CARTESIA.sampleRates;

export interface CartesiaTTSOptions extends FirstwordTTSOptions {
  /** Voice id. */
  voice: string;
  /** A model id or a dated snapshot (`sonic-3.5-2026-05-04`). @defaultValue `CARTESIA.defaultModel`, 'sonic-3.5' (Cartesia's recommendation) */
  model: string;
  /** ISO-639-1; omitted lets the model detect it. */
  language?: string;
  /** @defaultValue `CARTESIA.defaultSampleRate`, 24000 */
  sampleRate: number;
  /** @defaultValue `CARTESIA.defaultApiVersion` */
  apiVersion: string;
  /** Word timestamps → `TimedString`s; heard text is exact with them. @defaultValue `CARTESIA.wordTimestamps`, true (as in the official plugin) */
  wordTimestamps: boolean;
  /** @defaultValue 'https://api.cartesia.ai' (WebSocket at /tts/websocket, bytes at /tts/bytes) */
  baseURL: string;
}

/** Defaults of the options a caller leaves out (also what `npm run live-check` connects with). */
export const CARTESIA_DEFAULTS = {
  ...FIRSTWORD_TTS_DEFAULTS,
  wordTimestamps: CARTESIA.wordTimestamps,
  model: CARTESIA.defaultModel,
  sampleRate: CARTESIA.defaultSampleRate,
  apiVersion: CARTESIA.defaultApiVersion,
  baseURL: 'https://api.cartesia.ai',
} satisfies Partial<CartesiaTTSOptions>;

/** Cartesia over one persistent WebSocket; barge-in cancels the context and keeps the socket. */
export class CartesiaTTS extends FirstwordTTS {
  readonly label = 'firstword.cartesia.TTS';
  #codec: CartesiaCodec;
  #prepareText: ((text: string) => string) | undefined;
  #frameMs: number;

  constructor(opts: Partial<CartesiaTTSOptions> = {}) {
    const merged: CartesiaTTSOptions = { ...CARTESIA_DEFAULTS, voice: '', ...opts };
    const apiKey = checkSharedOptions(CARTESIA, merged);
    if (!merged.voice) throw new Error(`Cartesia voice id is required (${'CARTESIA_VOICE' satisfies CartesiaVariable})`);
    const codec = new CartesiaCodec({
      apiKey,
      apiVersion: merged.apiVersion,
      voice: merged.voice,
      model: merged.model,
      language: merged.language,
      sampleRate: merged.sampleRate,
      url: endpoint(merged, '/tts/websocket', 'ws'),
      bytesUrl: endpoint(merged, '/tts/bytes', 'http'),
      wordTimestamps: merged.wordTimestamps,
      connectTimeoutMs: merged.connectTimeoutMs,
    });
    const driver = driverOptions(merged);
    super(codec, driver, merged.pool, { alignedTranscript: merged.wordTimestamps }, merged.connectionBudget);
    this.#codec = codec;
    this.#prepareText = driver.prepareText;
    this.#frameMs = driver.frameMs;
  }

  override get model(): string {
    return this.#codec.model;
  }

  /**
   * One HTTP request for the whole text (`/tts/bytes`), streamed back as frames of `frameMs`. The
   * text is cleaned for the wire (`speakableText`) before it is prepared, as every piece
   * `stream()` sends is.
   */
  override synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    const speakable = speakableText(text);
    const request = this.#codec.bytesRequest(this.#prepareText ? this.#prepareText(speakable) : speakable);
    return new CartesiaBytesStream(text, this, request, this.#frameMs, connOptions, abortSignal);
  }
}
