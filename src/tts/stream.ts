import {
  APIConnectionError,
  APIError,
  type APIConnectOptions,
  log,
  shortuuid,
  tts,
} from '@livekit/agents';
import type { EventEmitter } from 'node:events';
import { type Chunk, type Chunker, createChunker } from '../chunking/index.js';
import type { ProviderCodec, ProviderEvent, TrackKey, TrackTiming } from './codec.js';
import { splitForLimit } from './pcm.js';
import { OrderedPlayout } from './playout.js';
import type { SocketPool } from './pool.js';
import type { ProviderSocket, TrackOwner } from './socket.js';
import { type TimelineEvents, now } from './timeline.js';
import { speakableText } from './wire-text.js';
import { type Segment, Track } from './track.js';
import type { DriverOptions } from './options.js';

const SPEAKABLE = /[\p{L}\p{N}]/u;
const MAX_IDLE_REPLACEMENTS = 3;

/** The socket closed while nothing of this stream was outstanding on it: take another. */
class SocketGoneIdle extends APIConnectionError {}

type Attempt = { socket: ProviderSocket; fail: (e: APIError) => void; finish: () => void };

/**
 * The one stream driver every provider shares: LLM deltas → chunker → provider tracks, audio back
 * strictly in chunk order. State lives on the stream, not in `run()`, so when the base class
 * retries after a dropped socket the next attempt re-sends exactly the text that was not yet
 * voiced and skips the audio already played.
 */
export class DriverStream extends tts.SynthesizeStream implements TrackOwner {
  readonly label: string;
  readonly id = shortuuid('fw_');
  #codec: ProviderCodec;
  #pool: SocketPool;
  #opts: DriverOptions;
  #timeline: EventEmitter<TimelineEvents>;
  #chunker: Chunker;
  #segments: Segment[] = [];
  #byKey = new Map<TrackKey, Track>();
  #inputDone = false;
  #pump: Promise<void> | undefined;
  #attempt: Attempt | undefined;
  #playout: OrderedPlayout;
  #firstFrameEmitted = false;
  #chunkIndex = 0;
  #endOfStreamSent = false;
  #logger = log();

  constructor(
    owner: tts.TTS,
    codec: ProviderCodec,
    pool: SocketPool,
    opts: DriverOptions,
    timeline: EventEmitter<TimelineEvents>,
    connOptions?: APIConnectOptions,
  ) {
    super(owner, connOptions);
    this.label = `firstword.${codec.provider}.SynthesizeStream`;
    this.#codec = codec;
    this.#pool = pool;
    this.#opts = opts;
    this.#timeline = timeline;
    this.#chunker = createChunker(opts.chunking);
    this.#playout = new OrderedPlayout(codec.sampleRate, Math.round((codec.sampleRate * opts.frameMs) / 1000), {
      put: (audio) => this.#put(audio),
      trackDone: (track, startSample, endSample) =>
        this.#timeline.emit('track_done', {
          streamId: this.id,
          segmentId: track.segment.id,
          track: track.key,
          chunks: track.chunks,
          startSample,
          endSample,
          sampleRate: codec.sampleRate,
          at: now(),
        }),
    });
  }

  protected async run(): Promise<void> {
    this.#pump ??= this.#pumpInput();
    // A socket the provider closed while we owed it nothing (idle between LLM tokens) is replaced
    // without spending one of the framework's retries.
    for (let replaced = 0; ; replaced++) {
      try {
        return await this.#attemptOnce();
      } catch (err) {
        if (!(err instanceof SocketGoneIdle) || replaced >= MAX_IDLE_REPLACEMENTS) throw err;
      }
    }
  }

  async #attemptOnce(): Promise<void> {
    if (this.abortSignal.aborted || this.#complete()) return this.#finishStream();
    let socket: ProviderSocket;
    try {
      socket = await this.#pool.acquire(this.abortSignal);
    } catch (err) {
      if (this.abortSignal.aborted) return; // an interruption is not a failure
      throw err;
    }
    if (this.abortSignal.aborted) {
      // Interrupted while the socket was on its way: hand it straight back.
      this.#pool.release(socket);
      return;
    }
    let settled = false;
    const done = new Promise<void>((resolve, reject) => {
      this.#attempt = {
        socket,
        fail: (e) => {
          if (!settled) (settled = true), reject(e);
        },
        finish: () => {
          if (!settled) (settled = true), resolve();
        },
      };
    });
    const onAbort = () => this.#interrupt();
    this.abortSignal.addEventListener('abort', onAbort, { once: true });
    try {
      this.#trySend();
      this.#checkComplete();
      await done;
    } catch (err) {
      const error = err instanceof APIError ? err : new APIConnectionError({ message: String(err) });
      if (this.abortSignal.aborted) return;
      if (error instanceof SocketGoneIdle) throw error;
      socket.abandon(this);
      this.#prepareRetry();
      this.#timeline.emit('retry', { streamId: this.id, at: now(), error: error.message, retryable: error.retryable });
      throw error;
    } finally {
      this.abortSignal.removeEventListener('abort', onAbort);
      this.#attempt = undefined;
      this.#pool.release(socket);
    }
  }

  // ---- input side -------------------------------------------------------------------------

  async #pumpInput(): Promise<void> {
    let segment = this.#newSegment();
    try {
      for await (const item of this.input) {
        if (this.abortSignal.aborted) break;
        if (item === tts.SynthesizeStream.FLUSH_SENTINEL) {
          for (const c of this.#chunker.flush()) this.#addChunk(segment, c);
          this.#closeSegment(segment);
          segment = this.#newSegment();
          continue;
        }
        for (const c of this.#chunker.push(item)) this.#addChunk(segment, c);
      }
      for (const c of this.#chunker.end()) this.#addChunk(segment, c);
    } catch (err) {
      this.#logger.warn({ err: String(err) }, 'TTS input ended with an error');
    } finally {
      this.#closeSegment(segment);
      this.#inputDone = true;
      this.#trySend();
      this.#checkComplete();
    }
  }

  #newSegment(): Segment {
    const segment: Segment = { id: `${this.id}_${this.#segments.length}`, tracks: [], closed: false, playedSamples: 0, heldPrefix: '' };
    this.#segments.push(segment);
    return segment;
  }

  #addChunk(segment: Segment, chunk: Chunk): void {
    // Split first, then prepare: the provider's limit counts spoken text, not SSML tags.
    const prepare = this.#opts.prepareText ?? ((t: string) => t);
    let pieces = splitForLimit(speakableText(chunk.text), this.#codec.maxRequestChars)
      .map(prepare)
      .filter((p) => p.trim().length > 0);
    if (this.#codec.trackPer === 'segment') pieces = this.#withoutLetterlessOpener(segment, pieces);
    if (!pieces.length) return;
    this.#timeline.emit('chunk', { streamId: this.id, segmentId: segment.id, index: this.#chunkIndex++, chunk, at: now() });
    if (this.#codec.trackPer === 'segment') {
      let track = segment.tracks[0];
      if (!track) track = this.#newTrack(segment, false);
      track.chunks.push(chunk);
      track.texts.push(...pieces);
    } else {
      pieces.forEach((piece, i) => {
        const track = this.#newTrack(segment, true);
        if (i === 0) track.chunks.push(chunk);
        track.texts.push(piece);
      });
    }
    this.#trySend();
  }

  /**
   * A context may not open with text that has no letter or digit (Cartesia refuses an empty or
   * punctuation-only first transcript, and would end the whole context): such text waits and
   * rides in front of the segment's first speakable piece.
   */
  #withoutLetterlessOpener(segment: Segment, pieces: string[]): string[] {
    if ((segment.tracks[0]?.texts.length ?? 0) > 0) return pieces;
    const first = pieces.findIndex((p) => SPEAKABLE.test(p));
    if (first < 0) {
      segment.heldPrefix = [segment.heldPrefix, ...pieces].filter(Boolean).join(' ');
      return [];
    }
    const opener = [segment.heldPrefix, ...pieces.slice(0, first + 1)].filter(Boolean).join(' ');
    segment.heldPrefix = '';
    return [opener, ...pieces.slice(first + 1)];
  }

  #newTrack(segment: Segment, closed: boolean): Track {
    const track = new Track(this.#codec.newTrack(), segment, closed);
    segment.tracks.push(track);
    this.#playout.add(track);
    this.#byKey.set(track.key, track);
    return track;
  }

  #closeSegment(segment: Segment): void {
    if (segment.closed) return;
    segment.closed = true;
    for (const t of segment.tracks) t.closed = true;
    // Its audio may have finished playing before the input ended: the last frame is still owed.
    this.#playout.segmentClosed(segment);
    this.#trySend();
    this.#checkComplete();
  }

  // ---- send side ------------------------------------------------------------------------------

  #trySend(): void {
    const attempt = this.#attempt;
    if (!attempt || this.abortSignal.aborted) return;
    const { socket } = attempt;
    try {
      for (const track of this.#playout.order) {
        if (track.ended || !track.hasUnsent) continue;
        const startsNewRequest = track.sent === 0;
        if (startsNewRequest && socket.inFlightFor(this) >= this.#codec.maxInFlight) break;
        while (track.sent < track.texts.length) {
          const text = track.texts[track.sent]!;
          const last = track.sent === track.texts.length - 1;
          const messages = this.#codec.encode({
            track: track.key,
            text,
            opensTrack: track.sent === track.firstOnKey,
            closesTrack: last && track.closed,
          });
          this.markStarted();
          // An open track whose text is all sent waits for the LLM, not for the provider.
          socket.send(track.key, this, messages, {
            awaitingInput: last && !track.closed,
            closes: last && track.closed,
            carriesSpeech: SPEAKABLE.test(text),
          });
          track.sent++;
          if (last && track.closed) track.closeSent = true;
          this.#timeline.emit('sent', { streamId: this.id, segmentId: track.segment.id, track: track.key, text, at: now() });
        }
        if (track.closed && !track.closeSent) {
          if (track.sent === track.firstOnKey) {
            // Nothing was sent on this key (a context the provider already ended): nothing to close.
            track.closeSent = true;
            this.#endTrack(track);
            continue;
          }
          // Through send(): closing makes the provider owe us the track's end again (watchdog).
          socket.send(track.key, this, this.#codec.encodeClose(track.key), { closes: true });
          track.closeSent = true;
        }
      }
    } catch (err) {
      const gone = !socket.isOpen && !this.#playout.order.some((t) => !t.ended && t.sent > t.firstOnKey);
      if (gone) attempt.fail(new SocketGoneIdle({ message: `${this.#codec.provider} socket closed while idle` }));
      else attempt.fail(err instanceof APIError ? err : new APIConnectionError({ message: String(err) }));
    }
  }

  // ---- receive side ---------------------------------------------------------------------------

  onTrackEvent(ev: ProviderEvent & { track: TrackKey }): void {
    if (this.abortSignal.aborted) return;
    const track = this.#byKey.get(ev.track);
    if (!track || track.key !== ev.track || track.ended) return; // an old key from a failed attempt
    switch (ev.type) {
      case 'audio': {
        if (track.firstByteAt === undefined) {
          track.firstByteAt = now();
          this.#timeline.emit('first_byte', { streamId: this.id, segmentId: track.segment.id, track: track.key, at: track.firstByteAt });
        }
        if (ev.timings) this.#addTimings(track, ev.timings);
        const pcm = track.reassembler.push(ev.pcm);
        if (pcm.length) this.#playout.accept(track, pcm);
        break;
      }
      case 'timings':
        this.#addTimings(track, ev.timings);
        break;
      case 'early_end':
        // An idle context's early `done`: remember how much text it covered (in case the provider
        // then refuses the context) and keep going.
        track.doneAt ??= track.sent;
        break;
      case 'end':
        this.#endTrack(track);
        break;
      case 'error':
        if (ev.reopensTrack && !track.closeSent) this.#reopen(track);
        else if (ev.endsTrackQuietly) this.#endTrack(track);
        else this.#attempt?.fail(ev.error);
        break;
    }
  }

  /** Words already heard before a retry re-synthesized the track are not timed twice. */
  #addTimings(track: Track, timings: TrackTiming[]): void {
    const heardUntil = track.retriedAfterSamples / this.#codec.sampleRate;
    for (const t of timings) if (heardUntil === 0 || t.end > heardUntil) track.pendingTimings.push(t);
  }

  /** The provider closed the context under us: text it did not voice goes out on a new one. */
  #reopen(track: Track): void {
    this.#byKey.delete(track.key);
    track.continueOnNewKey(this.#codec.newTrack(), track.doneAt ?? Math.max(track.firstOnKey, track.sent - 1));
    this.#byKey.set(track.key, track);
    this.#trySend();
    this.#checkComplete();
  }

  onSocketFailure(error: APIError): void {
    this.#attempt?.fail(error);
  }

  #endTrack(track: Track): void {
    const tail = track.reassembler.end();
    if (tail.length) this.#playout.accept(track, tail);
    if (track.reassembler.droppedBytes) {
      this.#logger.debug({ track: track.key, bytes: track.reassembler.droppedBytes }, 'dropped a dangling PCM byte');
    }
    this.#playout.ended(track);
    this.#trySend();
    this.#checkComplete();
  }


  #put(audio: tts.SynthesizedAudio): void {
    if (this.abortSignal.aborted || this.queue.closed) return;
    if (!this.#firstFrameEmitted) {
      this.#firstFrameEmitted = true;
      this.#timeline.emit('first_frame', { streamId: this.id, segmentId: audio.segmentId, at: now() });
    }
    this.queue.put(audio);
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  #complete(): boolean {
    return this.#inputDone && this.#playout.done && this.#segments.every((s) => s.closed);
  }

  #checkComplete(): void {
    if (!this.#complete()) return;
    this.#finishStream();
    this.#attempt?.finish();
  }

  #finishStream(): void {
    if (this.#endOfStreamSent) return;
    this.#endOfStreamSent = true;
    this.#playout.flushHeld();
    if (!this.abortSignal.aborted && !this.queue.closed) this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
  }

  /** Barge-in: stop emitting at once, mark every outstanding track stale, keep the socket. */
  #interrupt(): void {
    const attempt = this.#attempt;
    const stale = this.#playout.order.length - this.#playout.head;
    if (attempt) attempt.socket.abandon(this);
    this.#playout.dropHeld();
    this.#timeline.emit('interrupted', { streamId: this.id, at: now(), staleTracks: stale });
    attempt?.finish();
  }

  #prepareRetry(): void {
    // Audio already played stays played; everything else is synthesized again on a new key.
    // Tracks that already ended keep their buffered audio; the rest are synthesized again.
    for (let i = this.#playout.head; i < this.#playout.order.length; i++) {
      const track = this.#playout.order[i]!;
      if (track.ended) continue;
      this.#byKey.delete(track.key);
      track.resetForRetry(this.#codec.newTrack());
      this.#byKey.set(track.key, track);
    }
  }
}
