import { createTimedString, type TimedString, type tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { TrackTiming } from './codec.js';
import { PcmFrameSplitter } from './pcm-frames.js';
import type { Segment, Track } from './track.js';

export interface PlayoutHooks {
  /** A frame is ready for the stream's queue (in play order). */
  put(audio: tts.SynthesizedAudio): void;
  /** A track finished playing: where its audio sits in its segment. */
  trackDone(track: Track, startSample: number, endSample: number): void;
}

/**
 * Strict play order across tracks: audio of the track at the head is framed and emitted at once,
 * audio of later tracks waits in their buffers until every earlier track has finished. Keeps each
 * segment's last frame back so it can carry `final`, and places word timings on the segment's
 * time axis.
 */
export class OrderedPlayout {
  /** Every track of the stream, in play order. */
  readonly order: Track[] = [];
  #head = 0;
  #sampleRate: number;
  #bytes: PcmFrameSplitter;
  #hooks: PlayoutHooks;
  #held: tts.SynthesizedAudio | undefined;
  #carryTimed: TimedString[] = [];

  constructor(sampleRate: number, frameSamples: number, hooks: PlayoutHooks) {
    this.#sampleRate = sampleRate;
    this.#bytes = new PcmFrameSplitter(sampleRate, 1, frameSamples);
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
  }

  /** Whole samples of `track`, after skipping what a failed attempt already played. */
  accept(track: Track, pcm: Buffer): void {
    if (track.skip > 0) {
      const skipBytes = Math.min(pcm.length, track.skip * 2);
      track.skip -= skipBytes / 2;
      pcm = pcm.subarray(skipBytes);
      if (!pcm.length) return;
    }
    if (this.order[this.#head] === track) this.#play(track, pcm);
    else track.pending.push(pcm);
  }

  /** The provider finished `track`: play on as far as the order allows. */
  ended(track: Track): void {
    track.ended = true;
    this.#advance();
  }

  /** The segment's input ended; if its audio had already finished, its final frame is still owed. */
  segmentClosed(segment: Segment): void {
    const last = segment.tracks[segment.tracks.length - 1];
    if (last && last.ended && this.order.indexOf(last) < this.#head) this.#finishSegment(segment);
  }

  /** End of stream: a frame still held back goes out as final. */
  flushHeld(): void {
    if (!this.#held) return;
    this.#held.final = true;
    this.#hooks.put(this.#held);
    this.#held = undefined;
  }

  /** Interrupted: nothing more is emitted. */
  dropHeld(): void {
    this.#held = undefined;
  }

  #advance(): void {
    while (this.#head < this.order.length) {
      const head = this.order[this.#head]!;
      if (head.pending.length) {
        const buffered = head.pending;
        head.pending = [];
        for (const pcm of buffered) this.#play(head, pcm);
      }
      if (!head.ended) return;
      this.#finishHead(head);
    }
  }

  #finishHead(track: Track): void {
    this.#placeInSegment(track);
    for (const frame of this.#bytes.flush()) this.#emitFrame(track, frame);
    // Timings that came with the track's end (a word held until then) ride on the next frame out.
    const left = this.#takeTimings(track);
    if (left.length && this.#held) this.#held.timedTranscripts = [...(this.#held.timedTranscripts ?? []), ...left];
    else this.#carryTimed.push(...left);
    const segment = track.segment;
    const endSample = track.segmentOffset + track.played;
    segment.playedSamples = Math.max(segment.playedSamples, endSample);
    this.#hooks.trackDone(track, track.segmentOffset, endSample);
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
        frame: new AudioFrame(new Int16Array(1), this.#sampleRate, 1, 1),
        final: true,
      } satisfies tts.SynthesizedAudio);
    this.#held = undefined;
    final.final = true;
    const late = this.#carryTimed.splice(0);
    if (late.length) final.timedTranscripts = [...(final.timedTranscripts ?? []), ...late];
    if (segment.tracks.length > 0) this.#hooks.put(final);
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
      this.#hooks.put(this.#held);
      this.#held = undefined;
    }
    if (maybeLast) this.#held = audio;
    else this.#hooks.put(audio);
  }

  #takeTimings(track: Track): TimedString[] {
    if (!track.pendingTimings.length) return [];
    const offset = track.segmentOffset / this.#sampleRate;
    const out = track.pendingTimings.map((t: TrackTiming) =>
      createTimedString({ text: t.text, startTime: offset + t.start, endTime: offset + t.end }),
    );
    track.pendingTimings = [];
    return out;
  }
}
