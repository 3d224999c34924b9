import { APIConnectionError, APIError, log, type tts } from '@livekit/agents';
import { type Chunk, type Chunker, createChunker } from '../chunking/index.js';
import { type PacedChunker, createPacedChunker } from '../pacing/paced-chunker.js';
import type { ProviderCodec, ProviderEvent, TrackKey } from '../protocol/codec.js';
import type { DriverOptions } from './options.js';
import { AudioSink, audioSinkOptions } from './audio-sink.js';
import { OrderedPlayout } from './playout.js';
import type { SocketPool } from '../transport/pool.js';
import { requestPieces } from './request-text.js';
import type { ProviderSocket, TrackOwner } from '../transport/socket.js';
import { type StreamTimeline, now } from './timeline.js';
import { type Segment, type Track, TrackBook } from './track.js';

const MAX_IDLE_REPLACEMENTS = 3;

/** The socket closed while nothing of this stream was outstanding on it: take another. */
class SocketGoneIdle extends APIConnectionError {}

type Attempt = { socket: ProviderSocket; fail: (e: APIError) => void; finish: () => void };

/** Where a synthesis delivers: a SynthesizeStream, or a ChunkedStream for `synthesize()`. */
export interface SynthesisSink {
  /** The next frame, in play order. */
  put(audio: tts.SynthesizedAudio): void;
  /** The first text is about to go to the provider (the framework's metrics start here). */
  started(): void;
  /** Every track has played: the stream is complete. */
  finished(): void;
}

export interface SynthesisParams {
  codec: ProviderCodec;
  pool: SocketPool;
  opts: DriverOptions;
  /** This stream's own events (its id is the stream's). */
  timeline: StreamTimeline;
  sink: SynthesisSink;
  /** The stream's interruption: audio stops at once, stale tracks are abandoned, the socket kept. */
  signal: AbortSignal;
}

/**
 * The one stream driver every provider shares: text → chunker → provider tracks → audio strictly
 * in chunk order. State lives here, not in an attempt, so when the framework retries after a
 * dropped socket the next attempt re-sends exactly the text that was not yet voiced and skips the
 * audio already played. After every change of state, `#step()` — and only it — decides what to
 * send next and whether the stream is complete.
 */
export class Synthesis implements TrackOwner {
  readonly id: string;
  #codec: ProviderCodec;
  #pool: SocketPool;
  #opts: DriverOptions;
  #timeline: StreamTimeline;
  #sink: SynthesisSink;
  #signal: AbortSignal;
  #chunker: Chunker;
  /** The same chunker when the pacer is on: it may want to release text between deltas. */
  #paced: PacedChunker | undefined;
  #paceTimer: NodeJS.Timeout | undefined;
  #tracks: TrackBook;
  #playout: OrderedPlayout;
  #segments: Segment[] = [];
  #open: Segment;
  #inputDone = false;
  #attempt: Attempt | undefined;
  #firstFrameEmitted = false;
  #chunkIndex = 0;
  #finished = false;

  constructor(p: SynthesisParams) {
    this.#codec = p.codec;
    this.#pool = p.pool;
    this.#opts = p.opts;
    this.#timeline = p.timeline;
    this.id = p.timeline.streamId;
    this.#sink = p.sink;
    this.#signal = p.signal;
    const pacing = p.opts.pacing;
    this.#paced = pacing
      ? createPacedChunker(p.opts.chunking, {
          ...pacing,
          now,
          onFirstChunk: (report) => this.#timeline.emit('pacing', { streamId: this.id, report, at: now() }),
        })
      : undefined;
    this.#chunker = this.#paced ?? createChunker(p.opts.chunking);
    this.#tracks = new TrackBook(
      () => p.codec.newTrack(),
      (text) => p.codec.canOpenTrack?.(text) ?? true,
    );
    const rate = p.codec.sampleRate;
    const sink = new AudioSink(audioSinkOptions(p.codec, p.opts), this.#put);
    this.#playout = new OrderedPlayout(sink, {
      trackDone: (track, startSample, endSample) =>
        this.#timeline.emit('track_done', {
          streamId: this.id,
          segmentId: track.segment.id,
          track: track.key,
          chunks: track.chunks,
          startSample,
          endSample,
          sampleRate: rate,
          at: now(),
        }),
      deliveryGap: (gapMs) => p.codec.noteDeliveryGap?.(gapMs),
    });
    this.#open = this.#newSegment();
  }

  // ---- input ------------------------------------------------------------------------------

  push(text: string): void {
    if (this.#inputDone) return;
    for (const c of this.#chunker.push(text)) this.#addChunk(c);
    this.#step();
    this.#schedulePacer();
  }

  /** Ends the current segment (its last frame is `final`) and starts the next. */
  flush(): void {
    if (this.#inputDone) return;
    for (const c of this.#chunker.flush()) this.#addChunk(c);
    this.#closeSegment();
    this.#open = this.#newSegment();
    this.#step();
    this.#schedulePacer();
  }

  end(): void {
    if (this.#inputDone) return;
    this.#stopPacer();
    for (const c of this.#chunker.end()) this.#addChunk(c);
    this.#closeSegment();
    this.#inputDone = true;
    this.#step();
  }

  /** Wakes the pacer at its next deadline, when no delta comes first (each one reschedules). */
  #schedulePacer(): void {
    const paced = this.#paced;
    this.#stopPacer();
    const at = paced?.nextCheck();
    if (!paced || at === undefined || this.#inputDone || this.#signal.aborted) return;
    this.#paceTimer = setTimeout(() => {
      this.#paceTimer = undefined;
      if (this.#inputDone || this.#signal.aborted) return;
      for (const c of paced.check()) this.#addChunk(c);
      this.#step();
      this.#schedulePacer();
    }, Math.max(0, at - now()));
  }

  #stopPacer(): void {
    clearTimeout(this.#paceTimer);
    this.#paceTimer = undefined;
  }

  #newSegment(): Segment {
    const segment: Segment = { id: `${this.id}_${this.#segments.length}`, tracks: [], closed: false, heldOpener: '' };
    this.#segments.push(segment);
    return segment;
  }

  #addChunk(chunk: Chunk): void {
    const segment = this.#open;
    const pieces = this.#withOpener(segment, requestPieces(chunk.text, this.#codec.maxRequestChars, this.#opts.prepareText));
    if (!pieces.length) return;
    this.#timeline.emit('chunk', { streamId: this.id, segmentId: segment.id, index: this.#chunkIndex++, chunk, at: now() });
    if (this.#codec.tracks === 'context') {
      // One context per segment, continued with each chunk.
      (segment.tracks[0] ?? this.#newTrack(segment, false)).append(chunk, pieces);
    } else {
      // One request per piece; the chunk's range rides on its first.
      pieces.forEach((piece, i) => this.#newTrack(segment, true).append(i === 0 ? chunk : undefined, [piece]));
    }
  }

  /**
   * Text that may not open a track (see `ProviderCodec.canOpenTrack`) waits and rides in front of
   * the next piece that may: every piece opens a track of its own for `request` tracks, only the
   * segment's first for `context` tracks.
   */
  #withOpener(segment: Segment, pieces: string[]): string[] {
    const codec = this.#codec;
    if (!codec.canOpenTrack || (codec.tracks === 'context' && segment.tracks.length > 0)) return pieces;
    const out: string[] = [];
    let held = segment.heldOpener;
    for (const piece of pieces) {
      if (codec.tracks === 'context' && out.length > 0) {
        out.push(piece);
        continue;
      }
      const joined = [held, piece].filter(Boolean).join(' ');
      if (codec.canOpenTrack(piece)) {
        out.push(joined);
        held = '';
      } else {
        held = joined;
      }
    }
    segment.heldOpener = held;
    return out;
  }

  #newTrack(segment: Segment, closed: boolean): Track {
    const track = this.#tracks.create(segment, closed);
    segment.tracks.push(track);
    this.#playout.add(track);
    return track;
  }

  #closeSegment(): void {
    const segment = this.#open;
    if (segment.closed) return;
    segment.closed = true;
    for (const t of segment.tracks) t.close();
    // Its audio may have finished playing before the input ended: the last frame is still owed.
    this.#playout.segmentClosed(segment);
  }

  // ---- attempts ----------------------------------------------------------------------------

  /** One attempt of the framework's retry loop: resolves when the stream is complete or interrupted. */
  async run(): Promise<void> {
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
    if (this.#signal.aborted || this.#complete()) return this.#finish();
    let socket: ProviderSocket;
    try {
      socket = await this.#pool.acquire(this.#signal);
    } catch (err) {
      if (this.#signal.aborted) return; // an interruption is not a failure
      throw err;
    }
    if (this.#signal.aborted) {
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
    this.#signal.addEventListener('abort', onAbort, { once: true });
    try {
      this.#step();
      await done;
    } catch (err) {
      const error = err instanceof APIError ? err : new APIConnectionError({ message: String(err) });
      if (this.#signal.aborted) return;
      if (error instanceof SocketGoneIdle) throw error;
      socket.abandon(this);
      this.#prepareRetry();
      this.#timeline.emit('retry', { streamId: this.id, at: now(), error: error.message, retryable: error.retryable });
      throw error;
    } finally {
      this.#signal.removeEventListener('abort', onAbort);
      this.#attempt = undefined;
      this.#pool.release(socket);
    }
  }

  /** Sends what can go out now, then ends the stream if nothing is left to play. */
  #step(): void {
    this.#send();
    if (!this.#complete()) return;
    this.#finish();
    this.#attempt?.finish();
  }

  #send(): void {
    const attempt = this.#attempt;
    if (!attempt || this.#signal.aborted) return;
    const { socket } = attempt;
    try {
      for (const track of this.#playout.order) {
        if (this.#playout.hasEnded(track) || !track.hasUnsent) continue;
        if (track.startsFresh && socket.inFlightFor(this) >= this.#codec.maxInFlight) break;
        for (let next = track.next(); next; next = track.next()) {
          if (next.kind === 'nothing-to-close') {
            // Nothing was sent on this key (a context the provider already ended): nothing to close.
            track.sent(next);
            this.#playout.ended(track);
            break;
          }
          if (next.kind === 'close') {
            socket.closeTrack(this, track.key);
            track.sent(next);
            break;
          }
          this.#sink.started();
          socket.sendText(this, next.chunk, { awaitingInput: next.awaitingInput });
          track.sent(next);
          this.#timeline.emit('sent', { streamId: this.id, segmentId: track.segment.id, track: track.key, text: next.chunk.text, at: now() });
        }
      }
    } catch (err) {
      const owedNothing = !this.#playout.order.some((t) => !this.#playout.hasEnded(t) && t.sentOnKey);
      if (!socket.isOpen && owedNothing) attempt.fail(new SocketGoneIdle({ message: `${this.#codec.provider} socket closed while idle` }));
      else attempt.fail(err instanceof APIError ? err : new APIConnectionError({ message: String(err) }));
    }
  }

  // ---- what the provider sends -------------------------------------------------------------

  onTrackEvent(ev: ProviderEvent & { track: TrackKey }): void {
    if (this.#signal.aborted) return;
    const track = this.#tracks.find(ev.track);
    if (!track || this.#playout.hasEnded(track)) return; // an old key from a failed attempt
    switch (ev.type) {
      case 'audio': {
        const at = now();
        if (track.firstByte(at)) {
          this.#timeline.emit('first_byte', { streamId: this.id, segmentId: track.segment.id, track: track.key, at });
        }
        if (ev.timings) this.#playout.addTimings(track, ev.timings);
        this.#playout.accept(track, ev.pcm, ev.sampleRate);
        break;
      }
      case 'timings':
        this.#playout.addTimings(track, ev.timings);
        break;
      case 'drained':
        break; // the track stays open; more text may go out on it
      case 'end':
        this.#playout.ended(track);
        break;
      case 'lost':
        // What it had not voiced goes out on a new key; its audio continues the same track, in
        // order. Nothing left (our close met an expired context): the track just ends.
        log().debug({ track: ev.track, voiced: ev.voiced, reason: ev.error.message }, 'provider lost a track; continuing on a new key');
        this.#playout.continued(track);
        this.#tracks.continueOnNewKey(track, ev.voiced);
        break;
      case 'error':
        return this.#attempt?.fail(ev.error);
    }
    this.#step();
  }

  onSocketFailure(error: APIError): void {
    this.#attempt?.fail(error);
  }

  // ---- output and lifecycle ------------------------------------------------------------------

  /** The sink's output, in play order (a bound field: the start buffer calls it directly). */
  readonly #put = (audio: tts.SynthesizedAudio): void => {
    if (this.#signal.aborted) return;
    if (!this.#firstFrameEmitted) {
      this.#firstFrameEmitted = true;
      const at = now();
      this.#paced?.audioStarted(at);
      this.#timeline.emit('first_frame', { streamId: this.id, segmentId: audio.segmentId, at });
    }
    this.#sink.put(audio);
  };

  #complete(): boolean {
    return this.#inputDone && this.#playout.done && this.#segments.every((s) => s.closed);
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#stopPacer();
    this.#playout.flushHeld();
    if (!this.#signal.aborted) this.#sink.finished();
  }

  /** Barge-in: stop emitting at once, mark every outstanding track stale, keep the socket. */
  #interrupt(): void {
    this.#stopPacer();
    const attempt = this.#attempt;
    const stale = this.#playout.order.length - this.#playout.head;
    if (attempt) attempt.socket.abandon(this);
    this.#playout.dropHeld();
    this.#timeline.emit('interrupted', { streamId: this.id, at: now(), staleTracks: stale });
    attempt?.finish();
  }

  /** Audio already played stays played; every track that has not ended is synthesized again on a new key. */
  #prepareRetry(): void {
    for (let i = this.#playout.head; i < this.#playout.order.length; i++) {
      const track = this.#playout.order[i]!;
      if (this.#playout.hasEnded(track)) continue;
      this.#tracks.restartOnNewKey(track);
      this.#playout.restart(track);
    }
  }
}
