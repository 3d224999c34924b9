import type { APIConnectOptions, tts } from '@livekit/agents';
import { FirstwordTTS } from '../../driver/base.js';
import { audioSinkOptions } from '../../driver/audio-sink.js';
import { requestPieces } from '../../driver/request-text.js';
import { CartesiaBytesStream } from './bytes.js';
import { CartesiaCodec } from './codec.js';
import { type DriverOptions, FIRSTWORD_TTS_DEFAULTS, type FirstwordTTSOptions, checkSharedOptions, driverOptions, endpoint } from '../../driver/options.js';
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
  #driver: DriverOptions;

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
    this.#driver = driver;
  }

  override get model(): string {
    return this.#codec.model;
  }

  /**
   * One HTTP request for the whole text (`/tts/bytes`), its audio through the same sink as
   * `stream()`'s. The text is cleaned for the wire and prepared as every piece `stream()` sends is
   * (`requestPieces`, no length limit: one request); text with nothing to speak sends none.
   */
  override synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    const transcript = requestPieces(text, Infinity, this.#driver.prepareText).join(' ');
    const request = transcript ? { ...this.#codec.bytesRequest(transcript), text: transcript } : undefined;
    const timeline = this.newTimeline();
    const parts = { sink: audioSinkOptions(this.#codec, this.#driver), timeline };
    return this.announce(new CartesiaBytesStream(text, this, request, parts, connOptions, abortSignal), timeline);
  }
}
