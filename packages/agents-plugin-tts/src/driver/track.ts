import type { Chunk } from '../chunking/index.js';
import type { SendChunk, TrackKey } from '../protocol/codec.js';

/** A reply segment: the text between two flushes; its last frame carries `final: true`. */
export interface Segment {
  id: string;
  tracks: Track[];
  /** No more text will arrive for this segment. */
  closed: boolean;
  /** Text that may not open a track, waiting for the next that may (see `ProviderCodec.canOpenTrack`). */
  heldOpener: string;
}

/** The next message a track needs on the wire. */
export type NextSend =
  | { kind: 'text'; chunk: SendChunk; awaitingInput: boolean }
  | { kind: 'close' }
  /** A closed track with nothing sent on its current key (the provider already ended it). */
  | { kind: 'nothing-to-close' };

/**
 * The send side of one provider track across retries: its text, how much of it went out on the
 * current key, whether it was closed. Its audio side (what played, what waits) belongs to
 * OrderedPlayout. Only this class writes these fields; keys change only through TrackBook.
 */
export class Track {
  #key: TrackKey;
  readonly segment: Segment;
  readonly chunks: Chunk[] = [];
  readonly #texts: string[] = [];
  /** Texts sent so far on this track (reset when a retry moves the track to a new key). */
  #sent = 0;
  /** Index of the first text sent on the current key: that one opens the provider's track. */
  #firstOnKey = 0;
  /** No more text will be added (request tracks: at once; context tracks: when the segment closes). */
  #closed: boolean;
  #closeSent = false;
  #firstByteAt: number | undefined;
  readonly #canOpen: (text: string) => boolean;

  constructor(key: TrackKey, segment: Segment, closed: boolean, canOpen: (text: string) => boolean) {
    this.#key = key;
    this.segment = segment;
    this.#closed = closed;
    this.#canOpen = canOpen;
  }

  get key(): TrackKey {
    return this.#key;
  }

  get texts(): readonly string[] {
    return this.#texts;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get hasUnsent(): boolean {
    return this.#sent < this.#texts.length || (this.#closed && !this.#closeSent);
  }

  /** Whether text went out on the current key (the provider owes us something for it). */
  get sentOnKey(): boolean {
    return this.#sent > this.#firstOnKey;
  }

  /** Nothing of it went out yet in this attempt: sending starts a new request (the in-flight cap applies). */
  get startsFresh(): boolean {
    return this.#sent === 0;
  }

  append(chunk: Chunk | undefined, pieces: readonly string[]): void {
    if (chunk) this.chunks.push(chunk);
    this.#texts.push(...pieces);
  }

  close(): void {
    this.#closed = true;
  }

  /** What goes on the wire next, or undefined when the track waits (for the LLM, or for nothing). */
  next(): NextSend | undefined {
    this.#dropUnspeakableOpeners();
    if (this.#sent < this.#texts.length) {
      const last = this.#sent === this.#texts.length - 1;
      return {
        kind: 'text',
        chunk: {
          track: this.#key,
          text: this.#texts[this.#sent]!,
          opensTrack: this.#sent === this.#firstOnKey,
          closesTrack: last && this.#closed,
        },
        // An open track whose text is all sent waits for the LLM, not for the provider.
        awaitingInput: last && !this.#closed,
      };
    }
    if (!this.#closed || this.#closeSent) return undefined;
    return this.#sent === this.#firstOnKey ? { kind: 'nothing-to-close' } : { kind: 'close' };
  }

  /** `next()` went out on the wire (or, for `nothing-to-close`, needs not). */
  sent(what: NextSend): void {
    if (what.kind === 'text') {
      this.#sent++;
      if (what.chunk.closesTrack) this.#closeSent = true;
    } else {
      this.#closeSent = true;
    }
  }

  /**
   * A key continued after a loss opens with the next unvoiced text, which may be one the provider
   * refuses as a first input (punctuation, an emoji: see `ProviderCodec.canOpenTrack`). Such
   * text would make no sound: it is dropped rather than sent. A segment's first key never needs
   * this (the driver holds such text in front of the next piece).
   */
  #dropUnspeakableOpeners(): void {
    while (this.#sent === this.#firstOnKey && this.#sent < this.#texts.length && !this.#canOpen(this.#texts[this.#sent]!)) {
      this.#sent++;
      this.#firstOnKey++;
    }
  }

  /** Notes the first audio byte of this key; true the first time. */
  firstByte(at: number): boolean {
    if (this.#firstByteAt !== undefined) return false;
    this.#firstByteAt = at;
    return true;
  }

  /**
   * @internal TrackBook: the provider lost the track's key after voicing the first `voiced` texts
   * sent on it (see the `lost` event); the others, and any still to come, go out on `key`, nothing
   * voiced is repeated. If nothing is left and the track is closed, it simply ends
   * (`nothing-to-close`).
   */
  _continueOn(key: TrackKey, voiced: number): void {
    const from = Math.min(this.#firstOnKey + Math.max(0, voiced), this.#sent);
    this.#key = key;
    this.#sent = from;
    this.#firstOnKey = from;
    this.#closeSent = false;
  }

  /** @internal TrackBook: a failed attempt; all text goes out again on `key` (played audio is skipped). */
  _restartOn(key: TrackKey): void {
    this.#key = key;
    this.#sent = 0;
    this.#firstOnKey = 0;
    this.#closeSent = false;
    this.#firstByteAt = undefined;
  }
}

/** The one owner of track keys: creates tracks and moves them to new keys, keeping the lookup right. */
export class TrackBook {
  #byKey = new Map<TrackKey, Track>();
  #newKey: () => TrackKey;
  #canOpen: (text: string) => boolean;

  /** `canOpen`: whether a text may be the first on a key (`ProviderCodec.canOpenTrack`). */
  constructor(newKey: () => TrackKey, canOpen: (text: string) => boolean = () => true) {
    this.#newKey = newKey;
    this.#canOpen = canOpen;
  }

  create(segment: Segment, closed: boolean): Track {
    const track = new Track(this.#newKey(), segment, closed, this.#canOpen);
    this.#byKey.set(track.key, track);
    return track;
  }

  /** The track that currently uses `key` (an old key from a failed attempt finds nothing). */
  find(key: TrackKey): Track | undefined {
    return this.#byKey.get(key);
  }

  continueOnNewKey(track: Track, voiced: number): void {
    this.#rekey(track, (key) => track._continueOn(key, voiced));
  }

  restartOnNewKey(track: Track): void {
    this.#rekey(track, (key) => track._restartOn(key));
  }

  #rekey(track: Track, move: (key: TrackKey) => void): void {
    this.#byKey.delete(track.key);
    move(this.#newKey());
    this.#byKey.set(track.key, track);
  }
}
