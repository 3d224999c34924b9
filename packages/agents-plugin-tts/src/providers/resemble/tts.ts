import { FirstwordTTS } from '../../driver/base.js';
import { FIRSTWORD_TTS_DEFAULTS, type FirstwordTTSOptions, checkSharedOptions, driverOptions, endpoint } from '../../driver/options.js';
import { ResembleCodec } from './codec.js';
import { RESEMBLE, type ResembleVariable } from './descriptor.js';

/** Sample rates Resemble documents for WebSocket streaming (from its descriptor). */
export const RESEMBLE_SAMPLE_RATES = RESEMBLE.sampleRates;

export interface ResembleTTSOptions extends FirstwordTTSOptions {
  voiceUuid: string;
  projectUuid?: string;
  /** e.g. 'chatterbox', 'chatterbox-turbo'; omitted lets the voice pick. */
  model?: string;
  /** @defaultValue `RESEMBLE.defaultSampleRate`, 22050 (use 16000 for telephony) */
  sampleRate: number;
  /** @defaultValue 'wss://websocket.cluster.resemble.ai' (the adapter appends /stream) */
  baseURL: string;
  /** Audio as raw binary frames instead of base64 JSON (one request in flight per socket). @defaultValue false */
  binaryResponse: boolean;
  /** Requests in flight per socket; later chunks wait (pipelining needs ≥ 2). @defaultValue 4 */
  maxInFlight: number;
  /** Send SSML (`<speak>` with `<sub>`/`<say-as>`/`<break>`); LLM markup is always escaped. @defaultValue false */
  ssml: boolean;
}

/** Defaults of the options a caller leaves out (also what `npm run live-check` connects with). */
export const RESEMBLE_DEFAULTS = {
  ...FIRSTWORD_TTS_DEFAULTS,
  wordTimestamps: RESEMBLE.wordTimestamps,
  sampleRate: RESEMBLE.defaultSampleRate,
  baseURL: 'wss://websocket.cluster.resemble.ai',
  binaryResponse: false,
  maxInFlight: 4,
  ssml: false,
} satisfies Partial<ResembleTTSOptions>;

/** Resemble AI over one persistent, prewarmed WebSocket, with firstword's chunking. */
export class ResembleTTS extends FirstwordTTS {
  readonly label = 'firstword.resemble.TTS';
  #model: string | undefined;

  constructor(opts: Partial<ResembleTTSOptions> = {}) {
    const merged: ResembleTTSOptions = { ...RESEMBLE_DEFAULTS, voiceUuid: '', ...opts };
    const apiKey = checkSharedOptions(RESEMBLE, merged);
    if (!merged.voiceUuid) throw new Error(`Resemble voiceUuid is required (${'RESEMBLE_VOICE_UUID' satisfies ResembleVariable})`);
    if (!Number.isInteger(merged.maxInFlight) || merged.maxInFlight < 1) {
      throw new Error(`Resemble maxInFlight must be a positive integer (got ${merged.maxInFlight})`);
    }
    const codec = new ResembleCodec({
      apiKey,
      voiceUuid: merged.voiceUuid,
      projectUuid: merged.projectUuid,
      model: merged.model,
      sampleRate: merged.sampleRate,
      url: endpoint(merged, '/stream', 'ws'),
      binaryResponse: merged.binaryResponse,
      connectTimeoutMs: merged.connectTimeoutMs,
      maxInFlight: merged.maxInFlight,
    });
    super(codec, driverOptions(merged), merged.pool, { alignedTranscript: merged.wordTimestamps }, merged.connectionBudget);
    this.#model = merged.model;
  }

  override get model(): string {
    return this.#model ?? 'voice-default';
  }
}
