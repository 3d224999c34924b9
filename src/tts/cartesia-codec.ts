import { APIStatusError, shortuuid } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { type ProviderCodec, type ProviderEvent, type SendChunk, type TrackKey, rawBytes } from './codec.js';
import { openWebSocket } from './connect.js';
import { createMessageParser } from './message-parser.js';

const contextId = z.string().optional().nullable();
const serverMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('chunk'), data: z.string(), context_id: contextId, done: z.boolean().optional() }),
  z.object({
    type: z.literal('timestamps'),
    context_id: contextId,
    word_timestamps: z
      .object({ words: z.array(z.string()), start: z.array(z.number()), end: z.array(z.number()) })
      .optional()
      .nullable(),
  }),
  z.object({ type: z.literal('done'), context_id: contextId }),
  z.object({ type: z.literal('flush_done'), context_id: contextId }),
  z.object({ type: z.literal('phoneme_timestamps'), context_id: contextId }),
  z.object({
    type: z.literal('error'),
    context_id: contextId,
    done: z.boolean().optional(),
    status_code: z.number().optional(),
    // 2026-03-01 and later: structured; earlier versions: one `error` string.
    error_code: z.string().optional().nullable(),
    title: z.string().optional().nullable(),
    message: z.string().optional().nullable(),
    error: z.string().optional().nullable(),
  }),
]);
type ErrorMessage = Extract<z.infer<typeof serverMessage>, { type: 'error' }>;

export interface CartesiaCodecOptions {
  apiKey: string;
  apiVersion: string;
  voice: string;
  model: string;
  language?: string;
  sampleRate: number;
  /** The WebSocket endpoint (/tts/websocket). */
  url: string;
  /** The one-shot HTTP endpoint (/tts/bytes) for `synthesize()`. */
  bytesUrl: string;
  wordTimestamps: boolean;
  connectTimeoutMs: number;
}

const SPEAKABLE = /[\p{L}\p{N}]/u;

/** What the protocol needs us to remember about a context until it is done. */
interface ContextState {
  /** We sent `continue: false`: the context's next `done` may be final... */
  closing: boolean;
  /**
   * ...unless speakable text went out since its last audio: a `done` then is the early one
   * Cartesia sends for a context that went idle while our text was in flight, and another follows.
   */
  owesAudio: boolean;
}

/**
 * Cartesia's WebSocket protocol (docs/providers.md, part B): one context per reply segment,
 * continued chunk by chunk so prosody carries; contexts multiplex on one socket.
 */
export class CartesiaCodec implements ProviderCodec {
  readonly provider = 'cartesia';
  readonly ordering = 'multiplexed' as const;
  readonly tracks = 'context' as const;
  readonly maxRequestChars = 1000;
  readonly maxInFlight = 64;
  readonly sampleRate: number;
  #opts: CartesiaCodecOptions;
  #base: Record<string, unknown>;
  #contexts = new Map<TrackKey, ContextState>();
  #parse = createMessageParser('cartesia', serverMessage);

  constructor(opts: CartesiaCodecOptions) {
    this.#opts = opts;
    this.sampleRate = opts.sampleRate;
    this.#base = {
      model_id: opts.model,
      voice: { mode: 'id', id: opts.voice },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: opts.sampleRate },
      ...(opts.language ? { language: opts.language } : {}),
      // We chunk on the client; letting the server buffer too would only add latency.
      max_buffer_delay_ms: 0,
      ...(opts.wordTimestamps ? { add_timestamps: true } : {}),
    };
  }

  get model(): string {
    return this.#opts.model;
  }

  connect(signal?: AbortSignal): Promise<WebSocket> {
    return openWebSocket(this.#opts.url, {
      provider: 'Cartesia',
      keyEnvName: 'CARTESIA_API_KEY',
      headers: { 'X-API-Key': this.#opts.apiKey, 'Cartesia-Version': this.#opts.apiVersion },
      timeoutMs: this.#opts.connectTimeoutMs,
      signal,
    });
  }

  newTrack(): TrackKey {
    return shortuuid('fwctx_');
  }

  /** An empty or punctuation-only first transcript is refused, and would end the whole context. */
  canOpenTrack(text: string): boolean {
    return SPEAKABLE.test(text);
  }

  encode(chunk: SendChunk): string[] {
    const state = this.#state(chunk.track);
    state.closing ||= chunk.closesTrack;
    state.owesAudio ||= SPEAKABLE.test(chunk.text);
    // Transcripts of one context are joined exactly as sent: the separating space is ours to add.
    return [
      JSON.stringify({ ...this.#base, context_id: chunk.track, transcript: `${chunk.text} `, continue: !chunk.closesTrack }),
    ];
  }

  encodeClose(track: TrackKey): string[] {
    this.#state(track).closing = true;
    return [JSON.stringify({ ...this.#base, context_id: track, transcript: '', continue: false })];
  }

  encodeCancel(track: TrackKey): string[] {
    return [JSON.stringify({ context_id: track, cancel: true })];
  }

  /** One HTTP request for a whole (prepared) text: raw PCM in the body. */
  bytesRequest(transcript: string): { url: string; init: RequestInit; headers: Record<string, string> } {
    const o = this.#opts;
    const headers = { 'X-API-Key': o.apiKey, 'Cartesia-Version': o.apiVersion, 'Content-Type': 'application/json' };
    const body = {
      model_id: o.model,
      transcript,
      voice: { mode: 'id', id: o.voice },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: o.sampleRate },
      ...(o.language ? { language: o.language } : {}),
    };
    return { url: o.bytesUrl, headers, init: { method: 'POST', headers, body: JSON.stringify(body) } };
  }

  forget(track: TrackKey): void {
    this.#contexts.delete(track);
  }

  decode(data: RawData, _isBinary: boolean): ProviderEvent[] {
    const msg = this.#parse(JSON.parse(rawBytes(data).toString('utf8')));
    if (!msg) return [];
    const track = msg.context_id ?? undefined;
    switch (msg.type) {
      case 'chunk': {
        if (!track) return [];
        const state = this.#contexts.get(track);
        if (state) state.owesAudio = false;
        const events: ProviderEvent[] = [{ type: 'audio', track, pcm: Buffer.from(msg.data, 'base64') }];
        if (msg.done) events.push(this.#done(track));
        return events;
      }
      case 'timestamps': {
        const ts = msg.word_timestamps;
        if (!track || !ts) return [];
        const timings = ts.words.map((w, i) => ({ text: `${w} `, start: ts.start[i] ?? 0, end: ts.end[i] ?? 0 }));
        return [{ type: 'timings', track, timings }];
      }
      case 'done':
        return track ? [this.#done(track)] : [];
      case 'flush_done':
      case 'phoneme_timestamps':
        return [];
      case 'error':
        return [this.#error(msg, track)];
    }
  }

  #state(track: TrackKey): ContextState {
    let state = this.#contexts.get(track);
    if (!state) this.#contexts.set(track, (state = { closing: false, owesAudio: false }));
    return state;
  }

  /** Cartesia may report `done` for a context that merely went idle: only a closed one is over. */
  #done(track: TrackKey): ProviderEvent {
    const state = this.#contexts.get(track);
    return !state || (state.closing && !state.owesAudio) ? { type: 'end', track } : { type: 'drained', track };
  }

  #error(msg: ErrorMessage, track: TrackKey | undefined): ProviderEvent {
    const status = msg.status_code ?? 500;
    const code = msg.error_code ?? undefined;
    const text = msg.message ?? msg.error ?? msg.title ?? 'no message';
    const auth = status === 401 || status === 403;
    const emptyTranscript = code === 'transcript_empty' || (status === 400 && /empty|only punctuation/i.test(text));
    // Real Cartesia expires an idle context ~1 s after its last audio ("Context has closed").
    const contextClosed = code === 'context_closed' || /context has (closed|already finished)|has already finished/i.test(text);
    let message = `Cartesia error ${code ?? status}: ${text}`;
    if (auth) message = `Cartesia rejected the API key (${status}): check CARTESIA_API_KEY`;
    else if (code === 'model_not_found' || code === 'model_sunsetted' || /invalid model/i.test(text)) {
      message = `Cartesia does not serve model ${JSON.stringify(this.#opts.model)} (${code ?? 'invalid model'}): set CARTESIA_MODEL to a current model such as sonic-3`;
    } else if (status === 429 || code === 'concurrency_limited') {
      message = `Cartesia concurrency limit reached (${code ?? 429}): too many active contexts for this API key`;
    }
    const error = new APIStatusError({
      message,
      options: { statusCode: status, retryable: !auth && (status >= 500 || status === 429) },
    });
    // An expired context: what it had not voiced continues on a new one.
    if (track !== undefined && contextClosed) return { type: 'lost', track, error };
    // Nothing to voice (typical after a tool call): the context simply ends, no failure.
    if (track !== undefined && emptyTranscript) return { type: 'end', track };
    return { type: 'error', track, error, closesSocket: auth };
  }
}
