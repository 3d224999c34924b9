/**
 * Everything needed to tell, after the fact, what a listener heard of one TTS stream: the reply
 * as the stream received it, the chunks the driver cut it into, where each provider track's audio
 * sits in the segment, and the provider's word timings.
 */
import type { TimedString, tts } from '@livekit/agents';
import type { Chunk } from '@firstword/agents-plugin-tts/chunking';
import type { StreamTimeline, TimelineEvents } from '@firstword/agents-plugin-tts';
import { type Heard, heardPrefix, measuredCharsPerSecond, type VoicedSpan, type WordTiming } from './heard-prefix.js';
import { hangulShare } from './text.js';

type ChunkEvent = TimelineEvents['chunk'][0];
export type SpeechLanguage = 'english' | 'korean';
type TrackDoneEvent = TimelineEvents['track_done'][0];

export class ReplyTracker {
  readonly sampleRate: number;
  #reply = '';
  #segmentId: string | undefined;
  #chunks: Chunk[] = [];
  /** Tracks whose audio is complete, in play order. */
  #done: VoicedSpan[] = [];
  #covered = 0;
  #timings: WordTiming[] = [];
  #emittedSamples = 0;
  #timeline: StreamTimeline | undefined;
  /** Where the heard decision is reported; kept after the stream is over (playback ends later). */
  #reportTo: StreamTimeline | undefined;
  #onStop: (() => void) | undefined;

  constructor(sampleRate: number) {
    this.sampleRate = sampleRate;
  }

  /** The reply as the TTS stream received it so far. */
  get reply(): string {
    return this.#reply;
  }

  /** The chunks the driver cut the reply into so far, in order. */
  get chunks(): readonly Chunk[] {
    return this.#chunks;
  }

  get emittedSamples(): number {
    return this.#emittedSamples;
  }

  /** Listens to the stream's own timeline for its chunks and finished tracks. */
  follow(timeline: StreamTimeline): void {
    this.#timeline = timeline;
    this.#reportTo = timeline;
    timeline.on('chunk', this.#onChunk);
    timeline.on('track_done', this.#onTrackDone);
  }

  /** Stops listening (the stream is over); what was learned stays available. */
  unfollow(): void {
    this.#timeline?.off('chunk', this.#onChunk);
    this.#timeline?.off('track_done', this.#onTrackDone);
    this.#timeline = undefined;
  }

  /** Puts the heard decision of an interrupted reply on the timeline this tracker followed. */
  reportHeard(heard: Heard, playbackPosition: number): void {
    const timeline = this.#reportTo;
    timeline?.emit('heard', { streamId: timeline.streamId, ...heard, playbackPosition, at: performance.now() });
  }

  appendReply(delta: string): void {
    this.#reply += delta;
  }

  /** One frame the stream produced (only its segment's first frames count: one segment per stream). */
  onAudio(audio: tts.SynthesizedAudio): void {
    this.#segmentId ??= audio.segmentId;
    if (audio.segmentId !== this.#segmentId) return;
    this.#emittedSamples += audio.frame.samplesPerChannel;
    for (const t of audio.timedTranscripts ?? []) this.#timings.push(timing(t));
  }

  /** Called once when the tracked speech is interrupted, so the stream can stop at once. */
  set onStop(stop: (() => void) | undefined) {
    this.#onStop = stop;
  }

  stop(): void {
    const stop = this.#onStop;
    this.#onStop = undefined;
    stop?.();
  }

  /** The spans known now: finished tracks, then one open span for the chunks still being voiced. */
  spans(): VoicedSpan[] {
    const spans = [...this.#done];
    const rest = this.#chunks.slice(this.#covered);
    if (rest.length) {
      const last = spans[spans.length - 1];
      spans.push({ chunks: rest, startSample: last?.endSample ?? 0 });
    }
    return spans;
  }

  /**
   * What was heard after `playedSeconds` of this stream's segment played. `charsPerSecond` is the
   * voice's rate learned elsewhere, for audio whose length this stream cannot tell yet.
   */
  heard(playedSeconds: number, charsPerSecond?: number): Heard {
    return heardPrefix({
      reply: this.#reply,
      spans: this.spans(),
      playedSamples: Math.round(playedSeconds * this.sampleRate),
      sampleRate: this.sampleRate,
      timings: this.#timings,
      charsPerSecond,
    });
  }

  /** The speaking rate measured on this stream's complete tracks, if any. */
  measuredRate(): { charsPerSecond: number; language: SpeechLanguage } | undefined {
    const charsPerSecond = measuredCharsPerSecond(this.#done, this.sampleRate);
    return charsPerSecond === undefined ? undefined : { charsPerSecond, language: this.language };
  }

  /** Korean when most letters of the reply are Hangul (rates differ a lot between the two). */
  get language(): SpeechLanguage {
    return hangulShare(this.#reply) > 0.5 ? 'korean' : 'english';
  }

  #onChunk = (ev: ChunkEvent): void => {
    if (!this.#sameSegment(ev.segmentId)) return;
    this.#chunks.push(ev.chunk);
  };

  #onTrackDone = (ev: TrackDoneEvent): void => {
    if (!this.#sameSegment(ev.segmentId)) return;
    const previous = this.#done[this.#done.length - 1];
    if (ev.chunks.length === 0 && previous) {
      // The rest of a chunk split at the provider's length limit: it extends the chunk's audio.
      this.#done[this.#done.length - 1] = { ...previous, endSample: ev.endSample };
      return;
    }
    this.#done.push({ chunks: ev.chunks, startSample: ev.startSample, endSample: ev.endSample });
    this.#covered += ev.chunks.length;
  };

  #sameSegment(segmentId: string): boolean {
    this.#segmentId ??= segmentId;
    return segmentId === this.#segmentId;
  }
}

function timing(t: TimedString): WordTiming {
  return { text: t.text, startTime: t.startTime, endTime: t.endTime };
}
