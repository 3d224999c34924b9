/**
 * An `AudioOutput` with no speaker: it records what the session would have played, and when.
 *
 * Used wherever a session runs without a room — the offline demo, the benchmark and the tests.
 * In `realtime` playout it behaves like a device that plays at 1×: a segment starts playing with
 * its first frame, frames that arrive late leave audible gaps (recorded), a segment finishes when
 * its last sample has played, and an interruption (`clearBuffer`) stops it where the playhead is.
 * In `instant` playout a segment has "played" the moment it is flushed, so tests need not wait.
 */
import { AudioFrame } from '@livekit/rtc-node';
import { voice } from '@livekit/agents';
import { now as timelineNow, toEpoch } from '../latency/clock.js';

export type PlayoutMode = 'realtime' | 'instant';

export interface RecordingAudioOutputOptions {
  /**
   * Rate the session resamples to before handing frames over; unset keeps the TTS's own rate.
   * @defaultValue undefined
   */
  sampleRate?: number;
  /**
   * `realtime`: play at 1× from the first frame (what a listener would hear).
   * `instant`: a segment finishes the moment it is flushed.
   * @defaultValue 'realtime'
   */
  playout: PlayoutMode;
  /**
   * Clock for every recorded timestamp, in milliseconds.
   * @defaultValue the timeline clock (src/latency/clock.ts `now`)
   */
  now: () => number;
}

const DEFAULT_RECORDING_OPTIONS: RecordingAudioOutputOptions = {
  sampleRate: undefined,
  playout: 'realtime',
  now: timelineNow,
};

export interface RecordedFrame {
  readonly frame: AudioFrame;
  /** When the session handed the frame over. */
  readonly capturedAt: number;
  /** When the simulated device starts playing it (= `capturedAt` in `instant` playout). */
  readonly playAt: number;
  /** Where the frame starts within its segment's audio. */
  readonly offsetMs: number;
  readonly durationMs: number;
}

/** Silence heard in the middle of a segment because the next frame came after the audio ran out. */
export interface PlaybackGap {
  readonly at: number;
  readonly ms: number;
}

export interface RecordedSegment {
  readonly index: number;
  readonly frames: readonly RecordedFrame[];
  /** When playback of the segment started (its first frame's `playAt`). */
  readonly startedAt?: number;
  readonly flushedAt?: number;
  readonly finishedAt?: number;
  /** Audio captured for the segment. */
  readonly durationMs: number;
  /** Audio the listener heard: all of it, unless the segment was interrupted. */
  readonly playedMs: number;
  readonly gaps: readonly PlaybackGap[];
  readonly interrupted: boolean;
  readonly finished: boolean;
}

class SegmentRecord implements RecordedSegment {
  readonly frames: RecordedFrame[] = [];
  readonly gaps: PlaybackGap[] = [];
  startedAt?: number;
  flushedAt?: number;
  finishedAt?: number;
  durationMs = 0;
  playedMs = 0;
  interrupted = false;
  finished = false;
  /** When the last captured sample finishes playing. */
  playEndAt = 0;
  timer?: NodeJS.Timeout;

  constructor(readonly index: number) {}

  playedAt(now: number): number {
    let played = 0;
    for (const { playAt, durationMs } of this.frames) {
      played += Math.min(Math.max(now - playAt, 0), durationMs);
    }
    return played;
  }
}

export class RecordingAudioOutput extends voice.AudioOutput {
  /** Emitted with the {@link RecordedSegment} once it has finished (played out or interrupted). */
  static readonly EVENT_SEGMENT_FINISHED = 'segmentFinished';

  readonly #opts: RecordingAudioOutputOptions;
  readonly #segments: SegmentRecord[] = [];
  #open?: SegmentRecord;
  /** When everything handed to the simulated device so far has played. */
  #playheadEndAt = Number.NEGATIVE_INFINITY;

  constructor(opts: Partial<RecordingAudioOutputOptions> = {}) {
    const merged = { ...DEFAULT_RECORDING_OPTIONS, ...opts };
    super(merged.sampleRate);
    this.#opts = merged;
  }

  get playout(): PlayoutMode {
    return this.#opts.playout;
  }

  get segments(): readonly RecordedSegment[] {
    return this.#segments;
  }

  get frames(): readonly RecordedFrame[] {
    return this.#segments.flatMap((segment) => segment.frames);
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);

    let segment = this.#open;
    if (!segment) {
      segment = new SegmentRecord(this.#segments.length);
      this.#segments.push(segment);
      this.#open = segment;
    }

    const now = this.#opts.now();
    // `now` on the timeline clock, read at the same instant: the playback event's time must not
    // grow by however long this process is held up before it emits (4 ms on a loaded CI machine).
    const timelineAt = this.#opts.now === timelineNow ? now : timelineNow();
    const durationMs = (frame.samplesPerChannel / frame.sampleRate) * 1000;
    let playAt = now;
    if (this.#opts.playout === 'realtime') {
      if (segment.frames.length > 0 && now > this.#playheadEndAt) {
        segment.gaps.push({ at: this.#playheadEndAt, ms: now - this.#playheadEndAt });
      }
      playAt = Math.max(now, this.#playheadEndAt);
      this.#playheadEndAt = playAt + durationMs;
    }

    segment.frames.push({ frame, capturedAt: now, playAt, offsetMs: segment.durationMs, durationMs });
    segment.durationMs += durationMs;
    segment.playEndAt = playAt + durationMs;

    if (segment.frames.length === 1) {
      segment.startedAt = playAt;
      // The event's time is epoch ms (LiveKit's contract): when this frame plays, on the wall clock.
      this.onPlaybackStarted(toEpoch(playAt - now + timelineAt));
    }
  }

  override flush(): void {
    super.flush();
    const segment = this.#open;
    this.#open = undefined;
    if (!segment) return;

    segment.flushedAt = this.#opts.now();
    if (this.#opts.playout === 'instant') {
      this.#finish(segment, { interrupted: false, playedMs: segment.durationMs });
      return;
    }
    const remaining = Math.max(0, segment.playEndAt - segment.flushedAt);
    segment.timer = setTimeout(
      () => this.#finish(segment, { interrupted: false, playedMs: segment.durationMs }),
      remaining,
    );
  }

  /** Stops playback at once: every unfinished segment ends, interrupted, where the playhead is. */
  override clearBuffer(): void {
    if (this.#open) {
      // Closes the base class's open segment without scheduling a normal playout.
      super.flush();
      this.#open = undefined;
    }
    const now = this.#opts.now();
    for (const segment of this.#segments) {
      if (segment.finished) continue;
      const playedMs =
        this.#opts.playout === 'instant' ? segment.durationMs : segment.playedAt(now);
      this.#finish(segment, { interrupted: true, playedMs });
    }
    this.#playheadEndAt = Math.min(this.#playheadEndAt, now);
  }

  /** Ends anything still playing (as an interruption) so no timer outlives the session. */
  close(): void {
    this.clearBuffer();
  }

  #finish(segment: SegmentRecord, result: { interrupted: boolean; playedMs: number }): void {
    if (segment.finished) return;
    clearTimeout(segment.timer);
    segment.timer = undefined;
    segment.finished = true;
    segment.interrupted = result.interrupted;
    segment.playedMs = result.playedMs;
    segment.finishedAt = this.#opts.now();
    this.onPlaybackFinished({
      playbackPosition: result.playedMs / 1000,
      interrupted: result.interrupted,
    });
    this.emit(RecordingAudioOutput.EVENT_SEGMENT_FINISHED, segment);
  }
}

/**
 * The segment's audio as one frame: by default only what the listener heard, so an interrupted
 * answer is cut where the interruption landed. Undefined for a segment without frames.
 */
export function segmentAudio(
  segment: RecordedSegment,
  opts: { playedOnly?: boolean } = {},
): AudioFrame | undefined {
  const first = segment.frames[0]?.frame;
  if (!first) return undefined;
  const { sampleRate, channels } = first;
  for (const { frame } of segment.frames) {
    if (frame.sampleRate !== sampleRate || frame.channels !== channels) {
      throw new Error(
        `segment ${segment.index} mixes audio formats (${sampleRate} Hz × ${channels} and ` +
          `${frame.sampleRate} Hz × ${frame.channels}); set the output's sampleRate to resample`,
      );
    }
  }

  const total = segment.frames.reduce(
    (sum, { frame }) => sum + frame.samplesPerChannel * channels,
    0,
  );
  const data = new Int16Array(total);
  let written = 0;
  for (const { frame } of segment.frames) {
    data.set(frame.data.subarray(0, frame.samplesPerChannel * channels), written);
    written += frame.samplesPerChannel * channels;
  }

  const playedOnly = opts.playedOnly ?? true;
  const keptPerChannel = playedOnly
    ? Math.min(Math.round((segment.playedMs / 1000) * sampleRate), written / channels)
    : written / channels;
  return new AudioFrame(
    data.slice(0, keptPerChannel * channels),
    sampleRate,
    channels,
    keptPerChannel,
  );
}
