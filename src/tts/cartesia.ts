import { APIConnectionError, type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, shortuuid, tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { FirstwordTTS } from './base.js';
import { CartesiaCodec } from './cartesia-codec.js';
import { handshakeError, providerUrl } from './connect.js';
import type { SpeechOptions } from '../chunking/index.js';
import { DEFAULT_DRIVER_OPTIONS, type TTSChunkingOptions, speechPreparer } from './options.js';
import { PcmFrameSplitter } from './pcm-frames.js';
import { Pcm16Reassembler } from './pcm.js';
import { type SocketPoolOptions, checkTimerMs } from './pool.js';

export const CARTESIA_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;

export interface CartesiaTTSOptions {
  /** @defaultValue process.env.CARTESIA_API_KEY */
  apiKey?: string;
  /** Voice id. */
  voice: string;
  /** @defaultValue 'sonic-3' */
  model: string;
  /** ISO-639-1; omitted lets the model detect it. */
  language?: string;
  /** @defaultValue 24000 */
  sampleRate: number;
  /** @defaultValue '2026-03-01' */
  apiVersion: string;
  chunking: TTSChunkingOptions;
  /** @defaultValue 'https://api.cartesia.ai' (WebSocket at /tts/websocket, bytes at /tts/bytes) */
  baseURL: string;
  /** Word timestamps → `TimedString`s (aligned transcripts). */
  wordTimestamps: boolean;
  frameMs: number;
  /** Spoken-form normalization of numbers, dates and aliases (Korean/English); `false` disables it. */
  speech: SpeechOptions | false;
  /** Custom text preparation; overrides `speech`. */
  prepareText?: (text: string) => string;
  connectTimeoutMs: number;
  allowInsecure: boolean;
  pool: Partial<SocketPoolOptions>;
}

const defaults = {
  model: 'sonic-3',
  sampleRate: 24000,
  apiVersion: '2026-03-01',
  chunking: {},
  baseURL: 'https://api.cartesia.ai',
  wordTimestamps: false,
  frameMs: DEFAULT_DRIVER_OPTIONS.frameMs,
  speech: {},
  connectTimeoutMs: 10_000,
  allowInsecure: false,
  // Contexts multiplex on one socket, so a spare buys nothing after a barge-in.
  pool: { maxSockets: 1, warmSpare: false },
} satisfies Partial<CartesiaTTSOptions>;

/** Cartesia over one persistent WebSocket; barge-in cancels the context and keeps the socket. */
export class CartesiaTTS extends FirstwordTTS {
  readonly label = 'firstword.cartesia.TTS';
  #opts: CartesiaTTSOptions & { apiKey: string };
  #bytesUrl: string;

  constructor(opts: Partial<CartesiaTTSOptions> = {}) {
    const merged = { ...defaults, ...opts, pool: { ...defaults.pool, ...opts.pool } } as CartesiaTTSOptions;
    const apiKey = merged.apiKey ?? process.env.CARTESIA_API_KEY;
    if (!apiKey) throw new Error('Cartesia API key is required: pass apiKey or set CARTESIA_API_KEY');
    if (!merged.voice) throw new Error('Cartesia voice id is required (CARTESIA_VOICE)');
    if (!(CARTESIA_SAMPLE_RATES as readonly number[]).includes(merged.sampleRate)) {
      throw new Error(`Cartesia sampleRate must be one of ${CARTESIA_SAMPLE_RATES.join(', ')} (got ${merged.sampleRate})`);
    }
    checkTimerMs('connectTimeoutMs', merged.connectTimeoutMs);
    const codec = new CartesiaCodec({
      apiKey,
      apiVersion: merged.apiVersion,
      voice: merged.voice,
      model: merged.model,
      language: merged.language,
      sampleRate: merged.sampleRate,
      url: providerUrl(merged.baseURL, '/tts/websocket', 'ws', merged.allowInsecure),
      wordTimestamps: merged.wordTimestamps,
      connectTimeoutMs: merged.connectTimeoutMs,
    });
    const prepareText = speechPreparer(merged);
    super(
      codec,
      { chunking: merged.chunking, frameMs: merged.frameMs, prepareText },
      merged.pool,
      { alignedTranscript: merged.wordTimestamps },
    );
    this.#opts = { ...merged, apiKey, prepareText };
    this.#bytesUrl = providerUrl(merged.baseURL, '/tts/bytes', 'http', merged.allowInsecure);
  }

  override get model(): string {
    return this.#opts.model;
  }

  /** One HTTP request for the whole text (`/tts/bytes`), streamed back as frames. */
  override synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new CartesiaBytesStream(text, this, connOptions, abortSignal);
  }

  /** @internal */
  _bytesRequest(text: string): { url: string; init: RequestInit } {
    const o = this.#opts;
    return {
      url: this.#bytesUrl,
      init: {
        method: 'POST',
        headers: { 'X-API-Key': o.apiKey, 'Cartesia-Version': o.apiVersion, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model_id: o.model,
          transcript: o.prepareText ? o.prepareText(text) : text,
          voice: { mode: 'id', id: o.voice },
          output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: o.sampleRate },
          ...(o.language ? { language: o.language } : {}),
        }),
      },
    };
  }
}

class CartesiaBytesStream extends tts.ChunkedStream {
  readonly label = 'firstword.cartesia.ChunkedStream';
  #owner: CartesiaTTS;
  #timeoutMs: number;
  /** Samples delivered by earlier attempts (kept across the base class's retries). */
  #delivered = 0;

  constructor(text: string, owner: CartesiaTTS, connOptions?: APIConnectOptions, abortSignal?: AbortSignal) {
    super(text, owner, connOptions, abortSignal);
    this.#owner = owner;
    this.#timeoutMs = connOptions?.timeoutMs ?? DEFAULT_API_CONNECT_OPTIONS.timeoutMs;
  }

  protected async run(): Promise<void> {
    const { url, init } = this.#owner._bytesRequest(this.inputText);
    // The timeout bounds silence (before the response and between body parts), not how long a
    // long reply may stream.
    const silence = new AbortController();
    let timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    };
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.any([this.abortSignal, silence.signal]) });
    } catch (err) {
      clearTimeout(timer);
      if (this.abortSignal.aborted) return;
      const what = silence.signal.aborted ? `no response within ${this.#timeoutMs} ms` : String(err);
      throw new APIConnectionError({ message: `Cartesia /tts/bytes request failed: ${what}` });
    }
    if (!res.ok) {
      const headers = init.headers as Record<string, string>;
      throw handshakeError({ provider: 'Cartesia', keyEnvName: 'CARTESIA_API_KEY', headers }, res.status, await res.text().catch(() => ''));
    }
    const requestId = shortuuid('fwbytes_');
    const bytes = new PcmFrameSplitter(this.#owner.sampleRate, 1, Math.round(this.#owner.sampleRate / 50));
    const pcm = new Pcm16Reassembler();
    // A retry after a broken body re-synthesizes the text: skip what an earlier attempt delivered.
    let skip = this.#delivered;
    const put = (frame: AudioFrame) => {
      if (this.abortSignal.aborted) return;
      let f = frame;
      if (skip > 0) {
        const n = Math.min(skip, f.samplesPerChannel);
        skip -= n;
        if (n === f.samplesPerChannel) return;
        f = new AudioFrame(f.data.slice(n), f.sampleRate, 1, f.samplesPerChannel - n);
      }
      this.#delivered += f.samplesPerChannel;
      this.queue.put({ requestId, segmentId: requestId, frame: f, final: false });
    };
    try {
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        heard();
        if (this.abortSignal.aborted) return;
        const even = pcm.push(Buffer.from(part));
        if (even.length) for (const f of bytes.write(even)) put(f);
      }
    } catch (err) {
      if (this.abortSignal.aborted) return;
      const what = silence.signal.aborted ? `no audio for ${this.#timeoutMs} ms` : String(err);
      throw new APIConnectionError({ message: `Cartesia /tts/bytes stream broke: ${what}` });
    } finally {
      clearTimeout(timer);
    }
    const tail = pcm.end();
    if (tail.length) for (const f of bytes.write(tail)) put(f);
    for (const f of bytes.flush()) put(f);
  }
}
