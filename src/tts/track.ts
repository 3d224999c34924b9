import type { Chunk } from '../chunking/index.js';
import type { TrackKey, TrackTiming } from './codec.js';
import { Pcm16Reassembler } from './pcm.js';

/** A reply segment: the text between two flushes; its last frame carries `final: true`. */
export interface Segment {
  id: string;
  tracks: Track[];
  /** No more text will arrive for this segment. */
  closed: boolean;
  /** Samples already played in this segment (timestamps are offset by it). */
  playedSamples: number;
  /** Letterless text waiting for the segment's first speakable piece (never opens a context). */
  heldPrefix: string;
}

/**
 * What the driver knows about one provider track across retries: its text, how much of its audio
 * was already played, and the audio that arrived before it was its turn to play.
 */
export class Track {
  key: TrackKey;
  readonly segment: Segment;
  readonly chunks: Chunk[] = [];
  readonly texts: string[] = [];
  /** Texts sent so far on this track (reset when a retry moves the track to a new key). */
  sent = 0;
  /** Index of the first text sent on the current key: that one opens the provider context. */
  firstOnKey = 0;
  /** No more text will be added (Resemble: always; Cartesia: once the segment closes). */
  closed: boolean;
  closeSent = false;
  ended = false;
  /** Samples of this track already played; a retry skips that many of the new audio. */
  played = 0;
  skip = 0;
  /** Samples played before the last retry (their words were already timed). */
  retriedAfterSamples = 0;
  /** Sample offset of this track within its segment, fixed when it starts playing. */
  segmentOffset = 0;
  /** `segmentOffset` is known: the track became the head and started playing (kept across retries). */
  placed = false;
  firstByteAt: number | undefined;
  reassembler = new Pcm16Reassembler();
  pending: Buffer[] = [];
  pendingTimings: TrackTiming[] = [];

  constructor(key: TrackKey, segment: Segment, closed: boolean) {
    this.key = key;
    this.segment = segment;
    this.closed = closed;
  }

  get hasUnsent(): boolean {
    return this.sent < this.texts.length || (this.closed && !this.closeSent);
  }

  /**
   * The provider ended the track's context before we closed it (Cartesia may report `done` for an
   * idle context): later text continues on a new key, nothing already sent is repeated.
   */
  continueOnNewKey(key: TrackKey, fromText = this.sent): void {
    this.key = key;
    this.sent = fromText;
    this.firstOnKey = fromText;
    this.doneAt = undefined;
    this.closeSent = false;
  }

  /** Texts the provider had when it reported an early `done` for the current key. */
  doneAt: number | undefined;

  /** Moves the track to a fresh provider key after a failure; played audio will be skipped. */
  resetForRetry(key: TrackKey): void {
    this.key = key;
    this.sent = 0;
    this.firstOnKey = 0;
    this.closeSent = false;
    this.skip = this.played;
    this.retriedAfterSamples = this.played;
    this.doneAt = undefined;
    this.firstByteAt = undefined;
    this.reassembler = new Pcm16Reassembler();
    this.pending = [];
    this.pendingTimings = [];
  }
}
