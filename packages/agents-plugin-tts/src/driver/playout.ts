import { createTimedString, log, type TimedString, type tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { TrackTiming } from '../protocol/codec.js';
import type { AudioInput, AudioSink } from './audio-sink.js';
import { now } from './timeline.js';
import type { Segment, Track } from './track.js';

/** The audio side of one track; only OrderedPlayout reads or writes it. */
interface PlayState {
  /** When this track's audio last arrived (timeline clock): a long wait inside a track is the provider's. */
  lastAudioAt?: number;
  /** The provider finished the track's audio. */
  ended: boolean;
  /** Samples of this track already played; a retry skips that many of the new audio. */
  played: number;
  skip: number;
  /** Samples played before the last retry (their words were already timed). */
  retriedAfterSamples: number;
  /** Samples of the track's audio that came since its text last started over (skipped ones included). */
  received: number;
  /** Where the current key's audio starts in the track: a key continued after a loss times its words from 0. */
  keyStart: number;
  /** Sample offset of this track within its segment, fixed when it starts playing (kept across retries). */
  segmentOffset: number;
  placed: boolean;
  /** The track's bytes → whole samples at the stream's rate. */
  input: AudioInput;
  /** The rate the provider last said this track's audio is at. */
  inputRate: number;
  /** Audio that arrived before it was the track's turn to play. */
  pending: Buffer[];
  pendingTimings: TrackTiming[];
}

export interface PlayoutHooks {
  /** A track finished playing: where its audio sits in its segment. */
  trackDone(track: Track, startSample: number, endSample: number): void;
  /**
   * The provider kept a track's audio waiting `gapMs` (≥ {@link DELIVERY_GAP_MS}) after some of
   * it had come: its text was all sent, so the wait is the provider's delivery, not the LLM's.
   */
  deliveryGap?(gapMs: number): void;
}

/** A wait inside one track's audio that counts as bursty delivery (smooth providers stay far below). */
export const DELIVERY_GAP_MS = 250;

/**
 * Strict play order across tracks: audio of the track at the head is framed and emitted at once,
 * audio of later tracks waits in their buffers until every earlier track has finished. Reassembles
 * each track's PCM (odd-length frames, a RIFF header), skips what a failed attempt already played,
 * keeps each segment's last frame back so it can carry `final`, and places word timings on the
 * segment's time axis.
 */
export class OrderedPlayout {
  /** Every track of the stream, in play order. */
  readonly order: Track[] = [];
  #state = new Map<Track, PlayState>();
  /** Samples already played per segment (a track's timestamps are offset by it). */
  #segmentPlayed = new Map<Segment, number>();
  #head = 0;
  #sampleRate: number;
  #sink: AudioSink;
  #hooks: PlayoutHooks;
  #held: tts.SynthesizedAudio | undefined;
  #carryTimed: TimedString[] = [];

  /** `sink`: the stream's reassembly, rate conversion, framing and start buffer. */
  constructor(sink: AudioSink, hooks: PlayoutHooks) {
    this.#sampleRate = sink.sampleRate;
    this.#sink = sink;
    this.#hooks = hooks;
  }

  /** Index in `order` of the track now playing (`order.length` when all have played). */
  get head(): number {
    return this.#head;
  }

  get done(): boolean {
    return this.#head >= this.order.length;
  }

  add(track: Track): void {
    this.order.push(track);
    this.#state.set(track, {
      ended: false,
      played: 0,
      skip: 0,
      retriedAfterSamples: 0,
      received: 0,
      keyStart: 0,
      segmentOffset: 0,
      placed: false,
      input: this.#sink.input(),
      inputRate: this.#sampleRate,
      pending: [],
      pendingTimings: [],
    });
  }

  hasEnded(track: Track): boolean {
    return this.#stateOf(track).ended;
  }

  /** Audio bytes of `track` as the provider sent them, at `sampleRate` (resampled when it is not the TTS's). */
  accept(track: Track, bytes: Buffer, sampleRate = this.#sampleRate): void {
    const state = this.#stateOf(track);
    const at = now();
    if (state.lastAudioAt !== undefined && at - state.lastAudioAt >= DELIVERY_GAP_MS) this.#hooks.deliveryGap?.(at - state.lastAudioAt);
    state.lastAudioAt = at;
    state.inputRate = sampleRate;
    const pcm = state.input.push(bytes, sampleRate);
    if (pcm.length) this.#acceptSamples(track, pcm);
  }

  /**
   * Word timings of the current key of `track`, placed on the track's time axis; words already
   * heard before a retry re-synthesized it are not timed twice.
   */
  addTimings(track: Track, timings: readonly TrackTiming[]): void {
    const state = this.#stateOf(track);
    const heardUntil = state.retriedAfterSamples / this.#sampleRate;
    const keyStart = state.keyStart / this.#sampleRate;
    for (const t of timings) {
      const placed = keyStart === 0 ? t : { text: t.text, start: keyStart + t.start, end: keyStart + t.end };
      if (heardUntil === 0 || placed.end > heardUntil) state.pendingTimings.push(placed);
    }
  }

  /**
   * `track` goes on on a new key after the provider lost the old one: the new key's audio and word
   * times follow what already came (its times count from its own start).
   */
  continued(track: Track): void {
    const state = this.#stateOf(track);
    const tail = state.input.nextKey(state.inputRate);
    if (tail.length) this.#acceptSamples(track, tail);
    state.keyStart = state.received;
  }

  /** The provider finished `track`: play on as far as the order allows. */
  ended(track: Track): void {
    const state = this.#stateOf(track);
    const tail = state.input.end(state.inputRate);
    if (tail.length) this.#acceptSamples(track, tail);
    if (state.input.droppedBytes) {
      log().debug({ track: track.key, bytes: state.input.droppedBytes }, 'dropped a dangling PCM byte');
    }
    state.ended = true;
    this.#advance();
  }

  /**
   * A failed attempt: the track's audio comes again from the start, so what already played is
   * skipped and its words are not timed again. A track whose audio ended keeps what it buffered.
   */
  restart(track: Track): void {
    const state = this.#stateOf(track);
    state.skip = state.played;
    state.retriedAfterSamples = state.played;
    state.received = 0;
    state.keyStart = 0;
    state.input.reset();
    state.pending = [];
    state.pendingTimings = [];
  }

  /** The segment's input ended; if its audio had already finished, its final frame is still owed. */
  segmentClosed(segment: Segment): void {
    const last = segment.tracks[segment.tracks.length - 1];
    if (last && this.#stateOf(last).ended && this.order.indexOf(last) < this.#head) this.#finishSegment(segment);
  }

  /** End of stream: a frame still held back goes out as final. */
  flushHeld(): void {
    this.#closeConverters();
    if (this.#held) {
      this.#held.final = true;
      this.#sink.put(this.#held);
      this.#held = undefined;
    }
    this.#sink.release();
  }

  /** Interrupted: nothing more is emitted. */
  dropHeld(): void {
    this.#held = undefined;
    this.#sink.drop();
    this.#closeConverters();
  }

  /** Native resamplers of tracks that will not end normally. */
  #closeConverters(): void {
    for (const state of this.#state.values()) state.input.close();
  }

  #stateOf(track: Track): PlayState {
    const state = this.#state.get(track);
    if (!state) throw new Error(`track ${track.key} was never added to the playout`);
    return state;
  }

  /** Whole samples of `track`, after skipping what a failed attempt already played. */
  #acceptSamples(track: Track, pcm: Buffer): void {
    const state = this.#stateOf(track);
    state.received += pcm.length / 2;
    if (state.skip > 0) {
      const skipBytes = Math.min(pcm.length, state.skip * 2);
      state.skip -= skipBytes / 2;
      pcm = pcm.subarray(skipBytes);
      if (!pcm.length) return;
    }
    if (this.order[this.#head] === track) this.#play(track, pcm);
    else state.pending.push(pcm);
  }

  #advance(): void {
    while (this.#head < this.order.length) {
      const head = this.order[this.#head]!;
      const state = this.#stateOf(head);
      if (state.pending.length) {
        const buffered = state.pending;
        state.pending = [];
        for (const pcm of buffered) this.#play(head, pcm);
      }
      if (!state.ended) return;
      this.#finishHead(head);
    }
  }

  #finishHead(track: Track): void {
    const state = this.#placeInSegment(track);
    for (const frame of this.#sink.flushFrames()) this.#emitFrame(track, frame);
    // Timings that came with the track's end (a word held until then) ride on the next frame out.
    const left = this.#takeTimings(track);
    if (left.length && this.#held) this.#held.timedTranscripts = [...(this.#held.timedTranscripts ?? []), ...left];
    else this.#carryTimed.push(...left);
    const segment = track.segment;
    const endSample = state.segmentOffset + state.played;
    this.#segmentPlayed.set(segment, Math.max(this.#segmentPlayed.get(segment) ?? 0, endSample));
    this.#hooks.trackDone(track, state.segmentOffset, endSample);
    this.#head++;
    if (segment.closed && segment.tracks[segment.tracks.length - 1] === track) this.#finishSegment(segment);
  }

  /** A track's audio starts where its segment's played audio ends, fixed when it first plays. */
  #placeInSegment(track: Track): PlayState {
    const state = this.#stateOf(track);
    if (!state.placed) {
      state.segmentOffset = this.#segmentPlayed.get(track.segment) ?? 0;
      state.placed = true;
    }
    return state;
  }

  #finishSegment(segment: Segment): void {
    const final =
      this.#held ??
      ({
        requestId: segment.id,
        segmentId: segment.id,
        // A one-sample frame carries `final` when the segment's audio ended on a frame boundary.
        frame: new AudioFrame(new Int16Array(1), this.#sampleRate, 1, 1),
        final: true,
      } satisfies tts.SynthesizedAudio);
    this.#held = undefined;
    final.final = true;
    const late = this.#carryTimed.splice(0);
    if (late.length) final.timedTranscripts = [...(final.timedTranscripts ?? []), ...late];
    if (segment.tracks.length > 0) this.#sink.put(final);
  }

  #play(track: Track, pcm: Buffer): void {
    this.#placeInSegment(track).played += pcm.length / 2;
    for (const frame of this.#sink.frames(pcm)) this.#emitFrame(track, frame);
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
      this.#sink.put(this.#held);
      this.#held = undefined;
    }
    if (maybeLast) this.#held = audio;
    else this.#sink.put(audio);
  }

  #takeTimings(track: Track): TimedString[] {
    const state = this.#stateOf(track);
    if (!state.pendingTimings.length) return [];
    const offset = state.segmentOffset / this.#sampleRate;
    const out = state.pendingTimings.map((t: TrackTiming) =>
      createTimedString({ text: t.text, startTime: offset + t.start, endTime: offset + t.end }),
    );
    state.pendingTimings = [];
    return out;
  }
}
