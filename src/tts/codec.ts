import type { APIError } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';

/**
 * A "track" is the unit the provider attributes audio to: one Resemble request (one chunk of
 * text), or one Cartesia context (one segment of the reply, continued chunk by chunk). The driver
 * plays tracks strictly in the order it opened them.
 */
export type TrackKey = string;

/** Grapheme/word timing from the provider, in seconds relative to the start of the track's audio. */
export interface TrackTiming {
  text: string;
  start: number;
  end: number;
}

export type ProviderEvent =
  | { type: 'audio'; track?: TrackKey; pcm: Buffer; timings?: TrackTiming[] }
  | { type: 'timings'; track: TrackKey; timings: TrackTiming[] }
  | { type: 'end'; track: TrackKey }
  /** Set by the socket, not the codec: an `end` that arrived before the track was closed on our side. */
  | { type: 'early_end'; track: TrackKey }
  /** `track` is absent when the provider could not tie the error to a request (connection-level). */
  | {
      type: 'error';
      track?: TrackKey;
      error: APIError;
      closesSocket: boolean;
      /** Nothing to voice (e.g. Cartesia's empty first transcript): the track simply ends. */
      endsTrackQuietly?: boolean;
      /** The provider closed the context under us (expired): continue the track on a new one. */
      reopensTrack?: boolean;
    };

/** What the driver needs to send one piece of text on a track. */
export interface SendChunk {
  track: TrackKey;
  text: string;
  /** True for the first text sent on this track (Cartesia opens a context with it). */
  opensTrack: boolean;
  /** True when no more text will follow on this track (Cartesia: `continue: false`). */
  closesTrack: boolean;
}

/**
 * A provider is a codec over a WebSocket: how to connect, how to encode text, how to decode what
 * comes back. Everything else — ordering, stale-frame dropping, retries, pooling — lives once in
 * the driver.
 */
export interface ProviderCodec {
  readonly provider: string;
  readonly sampleRate: number;
  /**
   * `true` when one socket carries many tracks concurrently (Cartesia contexts). `false` when the
   * provider answers strictly in order (Resemble): a stale request then blocks the socket until it
   * drains, so a fresh turn goes to another socket.
   */
  readonly multiplexed: boolean;
  /** One track per chunk (Resemble) or one track per segment (Cartesia). */
  readonly trackPer: 'chunk' | 'segment';
  /** Largest text one request may carry; longer chunks are split before sending. */
  readonly maxRequestChars: number;
  /** Requests allowed in flight on one socket at once (binary Resemble frames need 1). */
  readonly maxInFlight: number;
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
   * attribute frames that carry no id (Resemble binary mode).
   */
  decode(data: RawData, isBinary: boolean, fifoHead: TrackKey | undefined): ProviderEvent[];
}
