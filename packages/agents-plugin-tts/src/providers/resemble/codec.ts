import { APIStatusError, log } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { type ProviderCodec, type ProviderEvent, type SendChunk, type TrackKey, type TrackTiming, rawBytes } from '../../protocol/codec.js';
import { openWebSocket } from '../../protocol/connect.js';
import { createMessageParser } from '../../protocol/message-parser.js';
import { RESEMBLE } from './descriptor.js';

/** Resemble refuses a request whose `data` is longer than this. */
export const RESEMBLE_MAX_REQUEST_CHARS = RESEMBLE.maxRequestChars;

const timestampsSchema = z.object({
  graph_chars: z.array(z.string()),
  graph_times: z.array(z.tuple([z.number(), z.number()])),
});

const serverMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('audio'),
    audio_content: z.string(),
    request_id: z.union([z.number(), z.string()]),
    sample_rate: z.number().optional(),
    audio_timestamps: timestampsSchema.partial().optional().nullable(),
  }),
  z.object({ type: z.literal('audio_end'), request_id: z.union([z.number(), z.string()]) }),
  z.object({
    type: z.literal('error'),
    success: z.literal(false).optional(),
    error_name: z.string().optional(),
    message: z.string().optional(),
    status_code: z.number().optional(),
    request_id: z.union([z.number(), z.string()]).optional().nullable(),
    error_params: z.record(z.string(), z.unknown()).optional().nullable(),
  }),
]);

export interface ResembleCodecOptions {
  apiKey: string;
  voiceUuid: string;
  projectUuid?: string;
  model?: string;
  sampleRate: number;
  url: string;
  binaryResponse: boolean;
  connectTimeoutMs: number;
  maxInFlight: number;
}

/**
 * Resemble's WebSocket protocol (docs/providers.md, part A): one request per chunk, answered in
 * order on a socket; no cancel, so stale requests drain.
 */
export class ResembleCodec implements ProviderCodec {
  readonly provider = 'resemble';
  readonly ordering = 'in-order' as const;
  readonly tracks = 'request' as const;
  readonly maxRequestChars = RESEMBLE_MAX_REQUEST_CHARS;
  /**
   * None until this engine has seen Resemble keep audio waiting inside a request: the bursts are
   * a field report, not documented, and on smooth delivery the buffer only delays first audio
   * for nothing. From the first burst on, every stream gets it.
   */
  get startBufferMs(): number {
    return this.#burstsSeen ? RESEMBLE.startBufferMs : 0;
  }
  #burstsSeen = false;
  readonly sampleRate: number;
  readonly maxInFlight: number;
  #opts: ResembleCodecOptions;
  #nextRequestId = 1;
  #words = new WordAssembler();
  #parse = createMessageParser('resemble', serverMessage);
  #rateReported = false;

  noteDeliveryGap(): void {
    this.#burstsSeen = true;
  }

  constructor(opts: ResembleCodecOptions) {
    this.#opts = opts;
    this.sampleRate = opts.sampleRate;
    // Binary frames carry no request id: only one request may be in flight to attribute them.
    this.maxInFlight = opts.binaryResponse ? 1 : opts.maxInFlight;
  }

  connect(signal?: AbortSignal): Promise<WebSocket> {
    return openWebSocket(this.#opts.url, {
      provider: 'Resemble',
      keyEnvName: 'RESEMBLE_API_KEY',
      headers: { Authorization: `Bearer ${this.#opts.apiKey}` },
      timeoutMs: this.#opts.connectTimeoutMs,
      signal,
    });
  }

  newTrack(): TrackKey {
    return String(this.#nextRequestId++);
  }

  encode(chunk: SendChunk): string[] {
    const o = this.#opts;
    return [
      JSON.stringify({
        voice_uuid: o.voiceUuid,
        data: chunk.text,
        request_id: Number(chunk.track),
        ...(o.projectUuid ? { project_uuid: o.projectUuid } : {}),
        ...(o.model ? { model: o.model } : {}),
        binary_response: o.binaryResponse,
        output_format: 'wav',
        sample_rate: o.sampleRate,
        precision: 'PCM_16',
        no_audio_header: true,
      }),
    ];
  }

  encodeClose(): string[] {
    return [];
  }

  encodeCancel(): string[] {
    return []; // Resemble has no cancel: stale frames are dropped by request id
  }

  forget(track: TrackKey): void {
    this.#words.end(track);
  }

  decode(data: RawData, isBinary: boolean, fifoHead: TrackKey | undefined): ProviderEvent[] {
    if (isBinary) {
      return fifoHead === undefined ? [] : [{ type: 'audio', track: fifoHead, pcm: rawBytes(data) }];
    }
    const msg = this.#parse(JSON.parse(rawBytes(data).toString('utf8')));
    if (!msg) return [];
    switch (msg.type) {
      case 'audio': {
        const track = String(msg.request_id);
        const rate = this.#servedRate(msg.sample_rate);
        if (rate instanceof APIStatusError) {
          this.#words.end(track);
          return [{ type: 'error', track, error: rate, closesSocket: false }];
        }
        const timings = this.#words.push(track, msg.audio_timestamps ?? undefined);
        return [
          {
            type: 'audio',
            track,
            pcm: Buffer.from(msg.audio_content, 'base64'),
            ...(timings.length ? { timings } : {}),
            ...(rate === undefined ? {} : { sampleRate: rate }),
          },
        ];
      }
      case 'audio_end': {
        const track = String(msg.request_id);
        const last = this.#words.end(track);
        return [...(last ? [{ type: 'timings' as const, track, timings: [last] }] : []), { type: 'end', track }];
      }
      case 'error': {
        const event = this.#error(msg);
        if (event.track !== undefined) this.#words.end(event.track);
        return [event];
      }
    }
  }

  /**
   * The echoed `sample_rate`, when it is not the rate asked (undefined when it is, or is absent):
   * that audio is resampled, not played at the wrong speed and pitch. A rate no resampler can take
   * is an error.
   */
  #servedRate(echoed: number | undefined): number | APIStatusError | undefined {
    if (echoed === undefined || echoed === this.sampleRate) return undefined;
    if (!Number.isInteger(echoed) || echoed < MIN_SERVED_RATE || echoed > MAX_SERVED_RATE) {
      return new APIStatusError({
        message: `Resemble sent audio at sample_rate ${echoed}, which cannot be played or resampled (asked ${this.sampleRate})`,
        options: { statusCode: -1, retryable: false },
      });
    }
    if (!this.#rateReported) {
      this.#rateReported = true;
      log().warn({ asked: this.sampleRate, served: echoed }, 'Resemble streams another sample rate than asked; resampling');
    }
    return echoed;
  }

  /**
   * Error frames → APIStatusErrors. Only a status that says so (5xx, 429) is retryable: a frame
   * without `status_code` is not assumed to be a passing server fault. A frame without
   * `request_id` (the documented `BadJSON` has none) is tied to no track here; the socket works
   * out which request it refused.
   */
  #error(msg: { error_name?: string; message?: string; status_code?: number; request_id?: number | string | null }): ProviderEvent {
    const status = msg.status_code;
    const name = msg.error_name ?? 'Error';
    const shown = `${name} ${status ?? '(no status)'}`;
    const track = msg.request_id === undefined || msg.request_id === null ? undefined : String(msg.request_id);
    const fail = (message: string, retryable: boolean, closesSocket = false): ProviderEvent => ({
      type: 'error',
      track,
      error: new APIStatusError({ message, options: { statusCode: status ?? -1, retryable } }),
      closesSocket,
    });
    if (status === 401 || status === 403 || name === 'ConnectionFailure' || name === 'Unauthorized') {
      // A bad key, or a plan without WebSocket streaming ("Unauthorized responses", the docs say):
      // every request would fail the same way, so the socket and the pool stop.
      return fail(`Resemble refused the request (${shown}): check RESEMBLE_API_KEY and that its plan includes WebSocket streaming (Business or higher)`, false, true);
    }
    if (name === 'DBCacheError' || MODEL_UNAVAILABLE.test(msg.message ?? '')) {
      // Seen live for a model the voice lacks, and for every model on an account whose plan lacks
      // WebSocket model access (docs/providers.md A.8): asking again cannot help.
      const model = this.#opts.model ? `model "${this.#opts.model}"` : "the voice's default model";
      return fail(
        `Resemble cannot use ${model} for voice ${this.#opts.voiceUuid} (${shown}: ${msg.message ?? 'no message'}): ` +
          'set RESEMBLE_MODEL to a model this voice supports, or leave it unset; if every model fails this way, ' +
          "the account's plan lacks WebSocket streaming (Business or higher)",
        false,
      );
    }
    return fail(`Resemble error ${name} (${status ?? 'no status'}): ${msg.message ?? 'no message'}`, status !== undefined && (status >= 500 || status === 429));
  }
}

/** Echoed rates the playout will resample from: the telephone band to studio rates. */
const MIN_SERVED_RATE = 4000;
const MAX_SERVED_RATE = 192_000;

/** Resemble's text for a model a voice cannot use (`DBCacheError: <model> is not available for this voice`). */
const MODEL_UNAVAILABLE = /not available for this voice/i;

type Graphemes = { graph_chars?: string[]; graph_times?: [number, number][] };

/**
 * Grapheme timings → word timings (a word ends at whitespace), in seconds from the request's start.
 * A frame may end mid-word, so the last word of each frame is held until the next frame (or the
 * request's end) shows whether it continues.
 */
class WordAssembler {
  #partial = new Map<TrackKey, TrackTiming>();

  push(track: TrackKey, ts: Graphemes | undefined): TrackTiming[] {
    if (!ts?.graph_chars?.length || !ts.graph_times?.length) return [];
    const words: TrackTiming[] = [];
    let word = this.#partial.get(track);
    this.#partial.delete(track);
    ts.graph_chars.forEach((ch, i) => {
      const [start, end] = ts.graph_times![i] ?? [word?.end ?? 0, word?.end ?? 0];
      if (/\s/.test(ch)) {
        if (word) words.push({ ...word, text: `${word.text} ` });
        word = undefined;
      } else if (word) {
        word.text += ch;
        word.end = end;
      } else {
        word = { text: ch, start, end };
      }
    });
    if (word) this.#partial.set(track, word);
    return words;
  }

  /** The request ended: its held word is complete. */
  end(track: TrackKey): TrackTiming | undefined {
    const word = this.#partial.get(track);
    this.#partial.delete(track);
    return word ? { ...word, text: `${word.text} ` } : undefined;
  }
}
