import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { AckOutput } from '../../src/audio/ack-output.js';
import { RecordingAudioOutput } from '../../src/audio/recording-output.js';
import { withTimeout } from '../helpers/async.js';

initializeLogger({ pretty: false, level: 'error' });

const RATE = 16_000;

/** `count` 10 ms frames whose samples all carry `tag`, so the recording tells whose audio it holds. */
function frames(tag: number, count: number): AudioFrame[] {
  return Array.from({ length: count }, () => new AudioFrame(new Int16Array(160).fill(tag), RATE, 1, 160));
}

function tags(recording: RecordingAudioOutput): number[][] {
  return recording.segments.map((segment) => [...new Set(segment.frames.map((f) => f.frame.data[0]!))]);
}

function setup() {
  const recording = new RecordingAudioOutput({ playout: 'realtime', sampleRate: RATE });
  const output = new AckOutput(recording);
  const sessionStarts: number[] = [];
  const sessionFinished: voice.PlaybackFinishedEvent[] = [];
  output.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, (ev: voice.PlaybackStartedEvent) => sessionStarts.push(ev.createdAt));
  output.on(voice.AudioOutput.EVENT_PLAYBACK_FINISHED, (ev: voice.PlaybackFinishedEvent) => sessionFinished.push(ev));
  return { recording, output, sessionStarts, sessionFinished };
}

describe('AckOutput', () => {
  it('plays the ack first and holds the session audio that comes meanwhile; the session never sees the ack', async () => {
    const { recording, output, sessionStarts, sessionFinished } = setup();
    const finished = new Promise((resolve) => output.ackEvents.once('ack_finished', resolve));
    const playback = output.play(frames(1, 8));
    expect(playback).toBeDefined();
    for (const frame of frames(2, 5)) await output.captureFrame(frame);
    output.flush();
    // Held while the ack plays: nothing of the session reached the output below yet.
    expect(tags(recording)).toEqual([[1]]);
    await withTimeout(finished, 2000, 'the ack to finish');
    await withTimeout(output.waitForPlayout(), 2000, 'the session audio to play out');
    expect(tags(recording)).toEqual([[1], [2]]);
    expect(playback!.stopped).toBe(false);
    expect(playback!.startedAt).toBeDefined();
    expect(sessionStarts).toHaveLength(1);
    expect(sessionFinished).toEqual([expect.objectContaining({ interrupted: false })]);
    // The session's audio started after the ack's.
    expect(recording.segments[1]!.startedAt!).toBeGreaterThanOrEqual(recording.segments[0]!.startedAt!);
  });

  it('refuses an ack while the session has audio on its way, and a second ack while one plays', async () => {
    const { output } = setup();
    await output.captureFrame(frames(2, 1)[0]!);
    expect(output.sessionAudioPending).toBe(true);
    expect(output.play(frames(1, 3))).toBeUndefined();
    output.flush();
    await withTimeout(output.waitForPlayout(), 2000, 'playout');
    expect(output.sessionAudioPending).toBe(false);
    expect(output.play(frames(1, 3))).toBeDefined();
    expect(output.play(frames(3, 3))).toBeUndefined();
  });

  it('stops the ack at once, and the held session audio follows', async () => {
    const { recording, output } = setup();
    const finished = new Promise<{ stopped: boolean }>((resolve) => output.ackEvents.once('ack_finished', resolve));
    output.play(frames(1, 50));
    for (const frame of frames(2, 3)) await output.captureFrame(frame);
    output.flush();
    output.stopAck();
    expect((await withTimeout(finished, 2000, 'the stopped ack')).stopped).toBe(true);
    await withTimeout(output.waitForPlayout(), 2000, 'the session audio');
    expect(recording.segments[0]!.interrupted).toBe(true);
    expect(tags(recording)).toEqual([[1], [2]]);
  });

  it('a barge-in on held session audio finishes it unplayed, so the session never waits for it', async () => {
    const { recording, output, sessionFinished } = setup();
    output.play(frames(1, 30));
    for (const frame of frames(2, 3)) await output.captureFrame(frame);
    output.flush();
    output.clearBuffer();
    await withTimeout(output.waitForPlayout(), 2000, 'the cleared segment');
    expect(sessionFinished).toEqual([{ playbackPosition: 0, interrupted: true }]);
    const ackFinished = new Promise((resolve) => output.ackEvents.once('ack_finished', resolve));
    output.stopAck();
    await withTimeout(ackFinished, 2000, 'the stopped ack');
    // The cleared session audio never reached the output below.
    expect(tags(recording)).toEqual([[1]]);
  });

  it("plays an ack made at another rate at the output's rate, as long and at the same pitch (rooms drop other rates silently)", async () => {
    const { recording, output } = setup();
    // 400 ms of a 300 Hz tone at 22.05 kHz (the embedded voice's rate), in 20 ms frames.
    const made = 22_050;
    const perFrame = made / 50;
    const clip = Array.from({ length: 20 }, (_, f) =>
      new AudioFrame(Int16Array.from({ length: perFrame }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * (f * perFrame + i)) / made))), made, 1, perFrame),
    );
    const finished = new Promise((resolve) => output.ackEvents.once('ack_finished', resolve));
    output.play(clip);
    await withTimeout(finished, 3000, 'the ack to finish');
    const played = recording.segments[0]!.frames.map((f) => f.frame);
    expect(new Set(played.map((f) => f.sampleRate))).toEqual(new Set([RATE]));
    const samples = Int16Array.from(played.flatMap((f) => [...f.data.subarray(0, f.samplesPerChannel)]));
    expect((samples.length / RATE) * 1000).toBeGreaterThan(390);
    expect((samples.length / RATE) * 1000).toBeLessThan(410);
    let crossings = 0;
    for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
    expect(crossings / 0.4).toBeGreaterThan(290);
    expect(crossings / 0.4).toBeLessThan(310);
    // Converted once: a clip prepared ahead, or played before, plays the very same frames again.
    const prepared = Array.from(clip);
    output.prepare([prepared]);
    for (const [i, expected] of [played, undefined].entries()) {
      const again = new Promise((resolve) => output.ackEvents.once('ack_finished', resolve));
      output.play(i === 0 ? clip : prepared);
      await withTimeout(again, 3000, 'the ack to finish again');
      const frames = recording.segments[1 + i]!.frames.map((f) => f.frame);
      if (expected) expect(frames.every((f, k) => f === expected[k])).toBe(true);
      else expect(frames.every((f) => f.sampleRate === RATE)).toBe(true);
    }
  });
});
