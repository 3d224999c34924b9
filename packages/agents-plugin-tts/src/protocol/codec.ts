import type { APIError } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import type { ProviderShape } from '../pacing/pacing-model.js';

/**
 * A "track" is the unit the provider attributes audio to: one request (one chunk of text), or
 * one context continued chunk by chunk through a segment of the reply. The driver plays tracks
 * strictly in the order it opened them.
 */
export type TrackKey = string;

/** Grapheme/word timing from the provider, in seconds relative to the start of the track's audio. */
export interface TrackTiming {
  text: string;
  start: number;
  end: number;
}

/** What a codec makes of one server message, per track. */
export type ProviderEvent =
  /**
   * `sampleRate`: the rate of these bytes, when the provider says it is not the rate asked
   * (`ProviderCodec.sampleRate`); the playout resamples them to the asked rate.
   */
  | { type: 'audio'; track: TrackKey; pcm: Buffer; timings?: TrackTiming[]; sampleRate?: number }
  | { type: 'timings'; track: TrackKey; timings: TrackTiming[] }
  /** The track is complete: nothing more will come for it. */
  | { type: 'end'; track: TrackKey }
  /**
   * The provider has voiced everything sent so far, but the track stays open: more text may still
   * be sent on it (a context that went idle while the LLM was slow).
   */
  | { type: 'drained'; track: TrackKey }
  /**
   * The provider dropped a track that had already spoken (an expired context answering late input
   * or our close), after voicing in full the first `voiced` texts sent on its key and none of the
   * rest. The driver sends the rest, and what follows, on a new key of the same track (its audio
   * continues in order; the new key's timings count from where the old key's audio ended), or
   * ends the track when nothing is left. A codec that cannot tell where the voicing stopped (an
   * input cut off mid-audio) reports a retryable `error` instead: the retry re-synthesizes the
   * track and skips what played. `error` says why, for the log.
   */
  | { type: 'lost'; track: TrackKey; voiced: number; error: APIError }
  /** `track` is absent when the provider could not tie the error to a track (connection-level). */
  | { type: 'error'; track?: TrackKey; error: APIError; closesSocket: boolean };

/** One piece of text to send on a track. */
export interface SendChunk {
  track: TrackKey;
  text: string;
  /** The first text sent on this track key. */
  opensTrack: boolean;
  /** No more text will follow on this track. */
  closesTrack: boolean;
}

/**
 * A provider is a codec over a WebSocket: how to connect, how to encode text, how to decode what
 * comes back, and the few facts of its protocol the driver must plan around (declared below).
 * Ordering, stale-frame dropping, retries and pooling live once, in the driver, socket and pool.
 * See src/README.md for the contract.
 */
export interface ProviderCodec {
  readonly provider: string;
  readonly sampleRate: number;
  /**
   * `multiplexed`: one socket carries many tracks concurrently, each failing on its own.
   * `in-order`: the provider answers a socket's requests strictly one after another, so a track
   * that stalls blocks the socket, and a stale request delays everything behind it until it
   * drains (a fresh turn is better served by another socket).
   */
  readonly ordering: 'in-order' | 'multiplexed';
  /**
   * `request`: each chunk of text is a track of its own, complete as sent. `context`: one track
   * per reply segment, continued with each chunk and closed when the segment ends (prosody
   * carries across chunks).
   */
  readonly tracks: 'request' | 'context';
  /** Largest text one request may carry; longer chunks are split before sending. */
  readonly maxRequestChars: number;
  /** Tracks one stream may have outstanding on a socket at once. */
  readonly maxInFlight: number;
  /**
   * Audio (ms) to gather before a stream's first frame goes out, for a provider that delivers in
   * bursts: the cushion its gaps eat into (playout.ts, start-buffer.ts). Read at each stream's
   * start, so a codec may return 0 until it has seen bursts. The TTS option `startBufferMs`
   * overrides it.
   * @defaultValue 0 (smooth delivery: every frame goes out as soon as it is whole)
   */
  readonly startBufferMs?: number;
  /** The playout saw the provider keep a track's audio waiting this long (see playout.ts). */
  noteDeliveryGap?(gapMs: number): void;
  /**
   * Whether `text` may be the first text of a track. Text that may not waits and goes out in
   * front of the next text that may (a provider that refuses an opening without words).
   * @defaultValue any text may open a track
   */
  canOpenTrack?(text: string): boolean;
  /** Opens and authenticates a socket; rejects with an APIError. */
  connect(signal?: AbortSignal): Promise<WebSocket>;
  /** Allocates a new track key (unique per codec instance). */
  newTrack(): TrackKey;
  encode(chunk: SendChunk): string[];
  /** Messages that end a track whose text is complete but was sent with `closesTrack: false`. */
  encodeClose(track: TrackKey): string[];
  /** Messages that ask the provider to stop a track (empty when the provider has no cancel). */
  encodeCancel(track: TrackKey): string[];
  /**
   * Decodes one server message. `fifoHead` is the oldest outstanding track on this socket, used to
   * attribute frames that carry no id (in-order providers only).
   */
  decode(data: RawData, isBinary: boolean, fifoHead: TrackKey | undefined): ProviderEvent[];
  /** The track left the socket (ended, failed, abandoned): per-track protocol state may go. */
  forget?(track: TrackKey): void;
  /**
   * The watchdog found `track` silent for the whole inactivity period. A codec that knows the
   * track is in fact complete (all its audio came, only the end marker is missing) returns its
   * `end`; otherwise (undefined) the track fails with a retryable timeout.
   * @defaultValue a silent track always fails
   */
  stalled?(track: TrackKey): ProviderEvent | undefined;
}

/**
 * What the pacer (src/pacing/pacer.ts) plans around, read from the codec's declarations: a
 * `context` track continues prosody across chunks, so a cut inside a sentence costs almost
 * nothing; a `request` track is a cold start, so later text goes in whole sentences. An `in-order`
 * socket starts a request's latency only when the one before it is generated.
 */
export function pacingShape(codec: Pick<ProviderCodec, 'tracks' | 'ordering'>): ProviderShape {
  return { continuation: codec.tracks === 'context', sequential: codec.ordering === 'in-order' };
}

/** A frame's bytes as one Buffer, whatever shape `ws` delivered them in. */
export function rawBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data as ArrayBuffer);
}
