/**
 * RecordingAudioOutput on its own, driven the way the framework drives an AudioOutput:
 * captureFrame… flush() then waitForPlayout(), or clearBuffer() to interrupt. Real-time playout
 * runs on fake timers, so no test waits for audio to "play".
 */
import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type RecordedSegment,
  RecordingAudioOutput,
  segmentAudio,
} from '../../src/audio/recording-output.js';
import { fromEpoch } from '../../src/latency/clock.js';

const RATE = 24_000;

/** A 20 ms frame whose samples all equal `value`, so recordings can be checked sample by sample. */
function frame(value: number, ms = 20): AudioFrame {
  const samples = (RATE * ms) / 1000;
  return new AudioFrame(new Int16Array(samples).fill(value), RATE, 1, samples);
}

beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));

describe('RecordingAudioOutput, instant playout', () => {
  it('records each segment between flushes and reports it fully played', async () => {
    const output = new RecordingAudioOutput({ playout: 'instant' });
    const started: number[] = [];
    output.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, (ev: { createdAt: number }) =>
      started.push(ev.createdAt),
    );

    await output.captureFrame(frame(1));
    await output.captureFrame(frame(2));
    output.flush();
    const first = await output.waitForPlayout();
    await output.captureFrame(frame(3));
    output.flush();
    const second = await output.waitForPlayout();

    expect(first).toEqual({ playbackPosition: 0.04, interrupted: false });
    expect(second).toEqual({ playbackPosition: 0.02, interrupted: false });
    expect(started).toHaveLength(2);
    expect(output.segments.map((s) => s.frames.length)).toEqual([2, 1]);
    expect(output.segments.map((s) => s.durationMs)).toEqual([40, 20]);
    expect(output.segments[0].frames.map((f) => f.offsetMs)).toEqual([0, 20]);
    expect(Array.from(segmentAudio(output.segments[0])!.data)).toEqual([
      ...new Array(480).fill(1),
      ...new Array(480).fill(2),
    ]);
  });

  it('ignores a flush or clear with nothing captured', async () => {
    const output = new RecordingAudioOutput({ playout: 'instant' });
    output.flush();
    output.clearBuffer();
    expect(output.segments).toHaveLength(0);
    await output.captureFrame(frame(1));
    output.clearBuffer();
    expect(output.segments).toHaveLength(1);
    expect(output.segments[0]).toMatchObject({ interrupted: true, finished: true });
  });
});

describe('RecordingAudioOutput, real-time playout', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  function finished(output: RecordingAudioOutput): RecordedSegment[] {
    const done: RecordedSegment[] = [];
    output.on(RecordingAudioOutput.EVENT_SEGMENT_FINISHED, (s: RecordedSegment) => done.push(s));
    return done;
  }

  it('finishes a segment only when its last sample has played', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    const done = finished(output);
    for (let i = 0; i < 5; i++) await output.captureFrame(frame(i)); // 100 ms, captured at once
    output.flush();

    vi.advanceTimersByTime(99);
    expect(done).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(done).toHaveLength(1);
    expect(await output.waitForPlayout()).toEqual({ playbackPosition: 0.1, interrupted: false });
    expect(done[0].frames.map((f) => f.playAt - 1_000_000)).toEqual([0, 20, 40, 60, 80]);
    expect(done[0].gaps).toEqual([]);
  });

  it('says playback started at the time its first frame plays, on the wall clock, not when the frame came', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    const started: number[] = [];
    output.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, (ev: { createdAt: number }) => started.push(ev.createdAt));
    for (let i = 0; i < 5; i++) await output.captureFrame(frame(i)); // 100 ms, captured at once
    output.flush();
    // The next reply arrives at once; it plays after the 100 ms still queued.
    await output.captureFrame(frame(9));
    output.flush();
    expect(started).toHaveLength(2);
    expect(started[0]).toBeCloseTo(1_000_000, 3);
    expect(started[1]).toBeCloseTo(1_000_100, 3);
  });

  it('records the silence heard when a frame arrives after the audio ran out', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    await output.captureFrame(frame(1));
    vi.advanceTimersByTime(50); // 30 ms of nothing after the first 20 ms played
    await output.captureFrame(frame(2));
    output.flush();
    vi.advanceTimersByTime(20);

    const [segment] = output.segments;
    expect(segment.finished).toBe(true);
    expect(segment.gaps).toEqual([{ at: 1_000_020, ms: 30 }]);
    expect(segment.frames[1].playAt).toBe(1_000_050);
  });

  it('stops where the playhead is on clearBuffer and keeps only what was heard', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    for (let i = 1; i <= 5; i++) await output.captureFrame(frame(i));
    output.flush();
    vi.advanceTimersByTime(30);
    output.clearBuffer();

    expect(await output.waitForPlayout()).toEqual({ playbackPosition: 0.03, interrupted: true });
    const [segment] = output.segments;
    expect(segment).toMatchObject({ interrupted: true, playedMs: 30, durationMs: 100 });
    const heard = segmentAudio(segment)!;
    expect(heard.samplesPerChannel).toBe(720);
    expect(Array.from(heard.data.slice(470, 490))).toEqual([
      ...new Array(10).fill(1),
      ...new Array(10).fill(2),
    ]);
    expect(segmentAudio(segment, { playedOnly: false })!.samplesPerChannel).toBe(2400);

    // The timer of the interrupted playout must not finish anything later.
    vi.advanceTimersByTime(1_000);
    expect(output.segments).toHaveLength(1);
  });

  it('interrupts a segment that is still being captured', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    await output.captureFrame(frame(1));
    output.clearBuffer();
    expect(await output.waitForPlayout()).toEqual({ playbackPosition: 0, interrupted: true });

    // The next frame opens a new segment rather than joining the interrupted one.
    await output.captureFrame(frame(2));
    output.flush();
    vi.advanceTimersByTime(20);
    expect(await output.waitForPlayout()).toEqual({ playbackPosition: 0.02, interrupted: false });
    expect(output.segments.map((s) => s.frames.length)).toEqual([1, 1]);
  });

  it('close() ends pending playout so no timer outlives the session', async () => {
    const output = new RecordingAudioOutput({ now: () => Date.now() });
    await output.captureFrame(frame(1));
    output.flush();
    output.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(output.segments[0]).toMatchObject({ finished: true, interrupted: true });
  });
});

describe('RecordingAudioOutput on the timeline clock', () => {
  afterEach(() => vi.restoreAllMocks());

  it('dates playback start to when its first frame plays, however long the process is held up before it says so', async () => {
    // Every read of the timeline clock comes 5 ms after the last: a loaded machine descheduling
    // the process between any two steps. The wall clock follows it, so epoch times stay in step.
    let t = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 5));
    vi.spyOn(Date, 'now').mockImplementation(() => performance.timeOrigin + t);
    const output = new RecordingAudioOutput({ playout: 'realtime' });
    const started: number[] = [];
    output.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, (ev: { createdAt: number }) => started.push(ev.createdAt));
    await output.captureFrame(frame(1));
    output.clearBuffer();
    expect(started).toHaveLength(1);
    expect(fromEpoch(started[0]!)).toBeCloseTo(output.frames[0]!.playAt, 3);
  });
});

describe('segmentAudio', () => {
  it('refuses to join frames of different formats', async () => {
    const output = new RecordingAudioOutput({ playout: 'instant' });
    await output.captureFrame(frame(1));
    await output.captureFrame(new AudioFrame(new Int16Array(160), 8_000, 1, 160));
    output.flush();
    expect(() => segmentAudio(output.segments[0])).toThrow(/mixes audio formats/);
  });
});
