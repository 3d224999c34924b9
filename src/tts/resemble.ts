import { FirstwordTTS } from './base.js';
import { providerUrl } from './connect.js';
import type { SpeechOptions } from '../chunking/index.js';
import { DEFAULT_DRIVER_OPTIONS, type TTSChunkingOptions, speechPreparer } from './options.js';
import { type SocketPoolOptions, checkTimerMs } from './pool.js';
import { ResembleCodec } from './resemble-codec.js';

/** Sample rates Resemble documents for WebSocket streaming. */
export const RESEMBLE_SAMPLE_RATES = [8000, 16000, 22050, 32000, 44100, 48000] as const;

export interface ResembleTTSOptions {
  /** @defaultValue process.env.RESEMBLE_API_KEY */
  apiKey?: string;
  voiceUuid: string;
  projectUuid?: string;
  /** e.g. 'chatterbox', 'chatterbox-turbo'; omitted lets the voice pick. */
  model?: string;
  /** @defaultValue 22050 (use 16000 for telephony) */
  sampleRate: number;
  chunking: TTSChunkingOptions;
  /** @defaultValue 'wss://websocket.cluster.resemble.ai' (the adapter appends /stream) */
  baseURL: string;
  /** Audio as raw binary frames instead of base64 JSON (one request in flight per socket). */
  binaryResponse: boolean;
  /** Requests in flight per socket; later chunks wait (pipelining needs ≥ 2). */
  maxInFlight: number;
  /** Ask for timing metadata → word `TimedString`s (aligned transcripts). */
  wordTimestamps: boolean;
  frameMs: number;
  /** Spoken-form normalization of numbers, dates and aliases (Korean/English); `false` disables it. */
  speech: SpeechOptions | false;
  /** Send SSML (`<speak>` with `<sub>`/`<say-as>`/`<break>`); LLM markup is always escaped. */
  ssml: boolean;
  /** Custom text preparation; overrides `speech` and `ssml`. */
  prepareText?: (text: string) => string;
  connectTimeoutMs: number;
  /** Permit ws:// to a non-loopback host (keys would travel in clear text). */
  allowInsecure: boolean;
  pool: Partial<SocketPoolOptions>;
}

const defaults = {
  sampleRate: 22050,
  chunking: {},
  baseURL: 'wss://websocket.cluster.resemble.ai',
  binaryResponse: false,
  maxInFlight: 4,
  wordTimestamps: false,
  frameMs: DEFAULT_DRIVER_OPTIONS.frameMs,
  speech: {},
  ssml: false,
  connectTimeoutMs: 10_000,
  allowInsecure: false,
  pool: {},
} satisfies Partial<ResembleTTSOptions>;

/** Resemble AI over one persistent, prewarmed WebSocket, with firstword's chunking. */
export class ResembleTTS extends FirstwordTTS {
  readonly label = 'firstword.resemble.TTS';
  #opts: ResembleTTSOptions;

  constructor(opts: Partial<ResembleTTSOptions> & { voiceUuid?: string } = {}) {
    const merged = { ...defaults, ...opts } as ResembleTTSOptions;
    const apiKey = merged.apiKey ?? process.env.RESEMBLE_API_KEY;
    if (!apiKey) throw new Error('Resemble API key is required: pass apiKey or set RESEMBLE_API_KEY');
    if (!merged.voiceUuid) throw new Error('Resemble voiceUuid is required (RESEMBLE_VOICE_UUID)');
    if (!(RESEMBLE_SAMPLE_RATES as readonly number[]).includes(merged.sampleRate)) {
      throw new Error(`Resemble sampleRate must be one of ${RESEMBLE_SAMPLE_RATES.join(', ')} (got ${merged.sampleRate})`);
    }
    if (!Number.isInteger(merged.maxInFlight) || merged.maxInFlight < 1) {
      throw new Error(`Resemble maxInFlight must be a positive integer (got ${merged.maxInFlight})`);
    }
    checkTimerMs('connectTimeoutMs', merged.connectTimeoutMs);
    const codec = new ResembleCodec({
      apiKey,
      voiceUuid: merged.voiceUuid,
      projectUuid: merged.projectUuid,
      model: merged.model,
      sampleRate: merged.sampleRate,
      url: providerUrl(merged.baseURL, '/stream', 'ws', merged.allowInsecure),
      binaryResponse: merged.binaryResponse,
      connectTimeoutMs: merged.connectTimeoutMs,
      maxInFlight: merged.maxInFlight,
    });
    super(
      codec,
      { chunking: merged.chunking, frameMs: merged.frameMs, prepareText: speechPreparer(merged) },
      merged.pool,
      { alignedTranscript: merged.wordTimestamps },
    );
    this.#opts = { ...merged, apiKey: '' }; // the key lives only in the codec
  }

  override get model(): string {
    return this.#opts.model ?? 'voice-default';
  }
}
