import { APIError, APIStatusError, shortuuid } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { type ProviderCodec, type ProviderEvent, type SendChunk, type TrackKey, rawBytes } from '../../protocol/codec.js';
import { openWebSocket } from '../../protocol/connect.js';
import { createMessageParser } from '../../protocol/message-parser.js';
import { CARTESIA } from './descriptor.js';

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
  /**
   * Audio came on this context. A context expires only after audio (1 s after its last), so an
   * error on a context that spoke is about late input, and one on a silent context is about the
   * request itself (key, model, voice, text) and would fail on a fresh context too.
   */
  heard: boolean;
  /** Non-empty inputs sent, and `flush_done`s back: without server buffering, one per input once its audio is out. */
  inputs: number;
  flushed: number;
  /** Audio bytes since the last `flush_done` (or the start): an input whose audio is still coming, or was cut off. */
  bytesSinceFlush: number;
  /** Inputs sent when the latest audio came. */
  inputsAtLastAudio: number;
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
  /**
   * Whether this service sends a `flush_done` per input (observed in 2026, not documented), which
   * tells when an input's audio is complete. Assumed until a context ends without any.
   */
  #flushDone: 'per-input' | 'never' | 'unknown' = 'unknown';
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
    state.inputs++;
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
        const pcm = Buffer.from(msg.data, 'base64');
        if (state) {
          state.owesAudio = false;
          state.heard = true;
          state.bytesSinceFlush += pcm.length;
          state.inputsAtLastAudio = state.inputs;
        }
        const events: ProviderEvent[] = [{ type: 'audio', track, pcm }];
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
      case 'flush_done': {
        const state = track === undefined ? undefined : this.#contexts.get(track);
        if (state) {
          state.flushed++;
          state.bytesSinceFlush = 0;
          this.#flushDone = 'per-input';
        }
        return [];
      }
      case 'phoneme_timestamps':
        return [];
      case 'error':
        return [this.#error(msg, track)];
    }
  }

  /**
   * A closed context whose audio has all come but whose `done` never does (seen live) is complete:
   * retrying would synthesize it again only to wait for the same `done`. All its audio has come
   * when every input got its `flush_done`, or, from a service known to send none, when audio came
   * after the last text we sent. A context still owed audio (a stall mid-input) fails with the
   * watchdog's timeout, and the retry re-synthesizes what was not played.
   */
  stalled(track: TrackKey): ProviderEvent | undefined {
    const state = this.#contexts.get(track);
    if (!state?.closing || !state.heard || state.owesAudio) return undefined;
    if (this.#flushDone !== 'never' && state.flushed < state.inputs) return undefined;
    return { type: 'end', track };
  }

  /**
   * Inputs of a context whose audio came in full, when that is known: those that got their
   * `flush_done` if none has audio still owing; from a service that sends no `flush_done`, those
   * sent before its last audio (right for an expiry, which comes only after all accepted audio).
   */
  #voicedInFull(state: ContextState): number | undefined {
    if (this.#flushDone === 'per-input') return state.bytesSinceFlush === 0 ? state.flushed : undefined;
    if (this.#flushDone === 'never') return state.inputsAtLastAudio;
    return undefined;
  }

  #state(track: TrackKey): ContextState {
    let state = this.#contexts.get(track);
    if (!state) this.#contexts.set(track, (state = { closing: false, owesAudio: false, heard: false, inputs: 0, flushed: 0, bytesSinceFlush: 0, inputsAtLastAudio: 0 }));
    return state;
  }

  /** Cartesia may report `done` for a context that merely went idle: only a closed one is over. */
  #done(track: TrackKey): ProviderEvent {
    const state = this.#contexts.get(track);
    if (state && state.closing && state.inputs > 0 && state.flushed === 0 && this.#flushDone === 'unknown') this.#flushDone = 'never';
    return !state || (state.closing && !state.owesAudio) ? { type: 'end', track } : { type: 'drained', track };
  }

  /**
   * Classified by status and by whether the context had spoken, never by wording alone: the text
   * Cartesia sends for input on an expired context is unconfirmed (docs/providers.md B.8).
   */
  #error(msg: ErrorMessage, track: TrackKey | undefined): ProviderEvent {
    const status = msg.status_code ?? 500;
    const code = msg.error_code ?? undefined;
    const text = [msg.title, msg.message ?? msg.error].filter(Boolean).join(': ') || 'no message';
    const fail = (message: string, retryable: boolean, closesSocket = false): ProviderEvent => ({
      type: 'error',
      track,
      error: new APIStatusError({ message, options: { statusCode: status, retryable } }),
      closesSocket,
    });
    if (status === 401 || status === 403) return fail(`Cartesia rejected the API key (${status}): check CARTESIA_API_KEY`, false, true);
    if (status === 429 || code === 'concurrency_limited') {
      return fail(`Cartesia concurrency limit reached (${code ?? 429}): too many active contexts for this API key`, true);
    }
    if (status >= 500) return fail(`Cartesia error ${code ?? status}: ${text}`, true);
    const context = track === undefined ? undefined : this.#contexts.get(track);
    if (track !== undefined && context?.heard) {
      // A context that already spoke: it expired, and answered our late input or close; or it
      // failed on one of its inputs. What it voiced in full is kept, the rest goes again.
      const voiced = this.#voicedInFull(context);
      const why = `Cartesia ended context ${track} (${code ?? status}: ${text})`;
      if (voiced === undefined) {
        // Not an APIStatusError: that makes every 4xx final, and this one is worth a retry.
        return { type: 'error', track, error: new APIError(`${why} in the middle of its audio`, { retryable: true }), closesSocket: false };
      }
      const error = new APIStatusError({ message: why, options: { statusCode: status, retryable: false } });
      return { type: 'lost', track, voiced, error };
    }
    // Nothing to voice (typical after a tool call): the context simply ends, no failure.
    if (track !== undefined && isEmptyTranscript(status, code, text)) return { type: 'end', track };
    return fail(this.#refusal(status, code, text), false);
  }

  /** A request Cartesia will refuse however often it is sent: name the setting to change. */
  #refusal(status: number, code: string | undefined, text: string): string {
    const what = `${code ?? status}: ${text}`;
    const o = this.#opts;
    if (code === 'model_not_found' || code === 'model_sunsetted' || /\bmodel\b/i.test(text)) {
      return `Cartesia does not serve model ${JSON.stringify(o.model)} (${what}): set CARTESIA_MODEL to a current model such as ${CARTESIA.defaultModel}`;
    }
    if (code?.startsWith('voice') || status === 404 || /\bvoice\b/i.test(text)) {
      return `Cartesia refused voice ${JSON.stringify(o.voice)} (${what}): set CARTESIA_VOICE to a voice id of this account`;
    }
    if (code === 'unsupported_output_format' || /sample.?rate|output.?format|encoding/i.test(text)) {
      return `Cartesia refused the output format (${what}): choose another sampleRate (TTS_SAMPLE_RATE)`;
    }
    if (/\b(language|locale)\b/i.test(text)) {
      return `Cartesia refused language ${JSON.stringify(o.language ?? 'auto')} (${what}): check CARTESIA_LANGUAGE`;
    }
    return `Cartesia refused the request (${what})`;
  }
}

/** An empty or punctuation-only transcript, in the structured (2026-03-01) or the legacy wording. */
function isEmptyTranscript(status: number, code: string | undefined, text: string): boolean {
  return code === 'transcript_empty' || (status === 400 && /empty or contains only punctuation/i.test(text));
}
