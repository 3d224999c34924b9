import {
  APIConnectionError,
  APIError,
  type APIConnectOptions,
  createTimedString,
  log,
  shortuuid,
  type TimedString,
  tts,
} from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { EventEmitter } from 'node:events';
import { type Chunk, type Chunker, createChunker } from '../chunking/index.js';
import type { ProviderCodec, ProviderEvent, TrackKey, TrackTiming } from './codec.js';
import { splitForLimit } from './pcm.js';
import { PcmFrameSplitter } from './pcm-frames.js';
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
  #order: Track[] = []; // play order across segments
  #head = 0; // index in #order of the track now playing
  #byKey = new Map<TrackKey, Track>();
  #inputDone = false;
  #pump: Promise<void> | undefined;
  #attempt: Attempt | undefined;
  #bytes: PcmFrameSplitter;
  #held: tts.SynthesizedAudio | undefined;
  #carryTimed: TimedString[] = [];
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
    this.#bytes = new PcmFrameSplitter(codec.sampleRate, 1, Math.round((codec.sampleRate * opts.frameMs) / 1000));
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
    this.#order.push(track);
    this.#byKey.set(track.key, track);
    return track;
  }

  #closeSegment(segment: Segment): void {
    if (segment.closed) return;
    segment.closed = true;
    for (const t of segment.tracks) t.closed = true;
    // Its audio may have finished playing before the input ended: the last frame is still owed.
    const last = segment.tracks[segment.tracks.length - 1];
    if (last && last.ended && this.#order.indexOf(last) < this.#head) this.#finishSegment(segment);
    this.#trySend();
    this.#checkComplete();
  }

  // ---- send side ------------------------------------------------------------------------------

  #trySend(): void {
    const attempt = this.#attempt;
    if (!attempt || this.abortSignal.aborted) return;
    const { socket } = attempt;
    try {
      for (const track of this.#order) {
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
      const gone = !socket.isOpen && !this.#order.some((t) => !t.ended && t.sent > t.firstOnKey);
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
        if (pcm.length) this.#acceptAudio(track, pcm);
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

  #acceptAudio(track: Track, pcm: Buffer): void {
    if (track.skip > 0) {
      const skipBytes = Math.min(pcm.length, track.skip * 2);
      track.skip -= skipBytes / 2;
      pcm = pcm.subarray(skipBytes);
      if (!pcm.length) return;
    }
    if (this.#order[this.#head] === track) this.#play(track, pcm);
    else track.pending.push(pcm);
  }

  #endTrack(track: Track): void {
    const tail = track.reassembler.end();
    if (tail.length) this.#acceptAudio(track, tail);
    if (track.reassembler.droppedBytes) {
      this.#logger.debug({ track: track.key, bytes: track.reassembler.droppedBytes }, 'dropped a dangling PCM byte');
    }
    track.ended = true;
    this.#advance();
    this.#trySend();
    this.#checkComplete();
  }

  /** Plays every finished head track, then the buffered audio of the new head. */
  #advance(): void {
    while (this.#head < this.#order.length) {
      const head = this.#order[this.#head]!;
      if (head.pending.length) {
        const buffered = head.pending;
        head.pending = [];
        for (const pcm of buffered) this.#play(head, pcm);
      }
      if (!head.ended) return;
      this.#finishTrack(head);
    }
  }

  #finishTrack(track: Track): void {
    if (this.#order[this.#head] !== track) {
      track.ended = true;
      return;
    }
    this.#placeInSegment(track);
    for (const frame of this.#bytes.flush()) this.#emitFrame(track, frame);
    // Timings that came with the track's end (a word held until then) ride on the next frame out.
    const left = this.#takeTimings(track);
    if (left.length && this.#held) this.#held.timedTranscripts = [...(this.#held.timedTranscripts ?? []), ...left];
    else this.#carryTimed.push(...left);
    track.ended = true;
    const segment = track.segment;
    const endSample = track.segmentOffset + track.played;
    segment.playedSamples = Math.max(segment.playedSamples, endSample);
    this.#timeline.emit('track_done', {
      streamId: this.id,
      segmentId: segment.id,
      track: track.key,
      chunks: track.chunks,
      startSample: track.segmentOffset,
      endSample,
      sampleRate: this.#codec.sampleRate,
      at: now(),
    });
    this.#head++;
    if (segment.closed && segment.tracks[segment.tracks.length - 1] === track) this.#finishSegment(segment);
  }

  /** A track's audio starts where its segment's played audio ends, fixed when it first plays. */
  #placeInSegment(track: Track): void {
    if (track.placed) return;
    track.segmentOffset = track.segment.playedSamples;
    track.placed = true;
  }

  #finishSegment(segment: Segment): void {
    const final =
      this.#held ??
      ({
        requestId: segment.id,
        segmentId: segment.id,
        // A one-sample frame carries `final` when the segment's audio ended on a frame boundary.
        frame: new AudioFrame(new Int16Array(1), this.#codec.sampleRate, 1, 1),
        final: true,
      } satisfies tts.SynthesizedAudio);
    this.#held = undefined;
    final.final = true;
    const late = this.#carryTimed.splice(0);
    if (late.length) final.timedTranscripts = [...(final.timedTranscripts ?? []), ...late];
    if (segment.tracks.length > 0) this.#put(final);
  }

  #play(track: Track, pcm: Buffer): void {
    this.#placeInSegment(track);
    track.played += pcm.length / 2;
    for (const frame of this.#bytes.write(pcm)) this.#emitFrame(track, frame);
  }

  #emitFrame(track: Track, frame: AudioFrame): void {
    const timed = [...this.#carryTimed.splice(0), ...this.#takeTimings(track)];
    const audio: tts.SynthesizedAudio = {
      requestId: track.key,
      segmentId: track.segment.id,
      frame,
      final: false,
      ...(timed.length ? { timedTranscripts: timed } : {}),
    };
    const segment = track.segment;
    const maybeLast = segment.closed && segment.tracks[segment.tracks.length - 1] === track;
    if (this.#held) {
      this.#put(this.#held);
      this.#held = undefined;
    }
    if (maybeLast) this.#held = audio;
    else this.#put(audio);
  }

  #takeTimings(track: Track): TimedString[] {
    if (!track.pendingTimings.length) return [];
    const offset = track.segmentOffset / this.#codec.sampleRate;
    const out = track.pendingTimings.map((t: TrackTiming) =>
      createTimedString({ text: t.text, startTime: offset + t.start, endTime: offset + t.end }),
    );
    track.pendingTimings = [];
    return out;
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
    return this.#inputDone && this.#head >= this.#order.length && this.#segments.every((s) => s.closed);
  }

  #checkComplete(): void {
    if (!this.#complete()) return;
    this.#finishStream();
    this.#attempt?.finish();
  }

  #finishStream(): void {
    if (this.#endOfStreamSent) return;
    this.#endOfStreamSent = true;
    if (this.#held) {
      this.#held.final = true;
      this.#put(this.#held);
      this.#held = undefined;
    }
    if (!this.abortSignal.aborted && !this.queue.closed) this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
  }

  /** Barge-in: stop emitting at once, mark every outstanding track stale, keep the socket. */
  #interrupt(): void {
    const attempt = this.#attempt;
    const stale = this.#order.length - this.#head;
    if (attempt) attempt.socket.abandon(this);
    this.#held = undefined;
    this.#timeline.emit('interrupted', { streamId: this.id, at: now(), staleTracks: stale });
    attempt?.finish();
  }

  #prepareRetry(): void {
    // Audio already played stays played; everything else is synthesized again on a new key.
    // Tracks that already ended keep their buffered audio; the rest are synthesized again.
    for (let i = this.#head; i < this.#order.length; i++) {
      const track = this.#order[i]!;
      if (track.ended) continue;
      this.#byKey.delete(track.key);
      track.resetForRetry(this.#codec.newTrack());
      this.#byKey.set(track.key, track);
    }
  }
}
