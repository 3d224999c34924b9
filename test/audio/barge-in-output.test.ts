/**
 * BargeInSafeOutput in front of an output with a pause gate like the room's (agents 1.9
 * room_io/_output.ts): a frame that waits at the gate while paused plays on resume unless the
 * buffer was cleared first. The framework resumes an interrupted reply's output before it clears
 * it; this wrapper must make that frame never play, and leave a genuine resume alone.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { BargeInSafeOutput } from '../../src/audio/barge-in-output.js';

/** Plays frames unless paused (they wait) or cleared since they arrived (they are dropped). */
class GatedOutput extends voice.AudioOutput {
  played: number[] = [];
  #generation = 0;
  #gate: Promise<void> = Promise.resolve();
  #open: () => void = () => {};

  constructor() {
    super(16000, undefined, { pause: true });
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    const generation = this.#generation;
    await super.captureFrame(frame);
    await this.#gate;
    if (generation !== this.#generation) return;
    this.played.push(frame.data[0]!);
  }

  override pause(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  override resume(): void {
    this.#open();
  }

  clearBuffer(): void {
    this.#generation++;
    this.onPlaybackFinished({ playbackPosition: 0, interrupted: true });
  }
}

const frame = (tag: number) => new AudioFrame(new Int16Array(160).fill(tag), 16000, 1, 160);
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('BargeInSafeOutput', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));

  function setup() {
    const room = new GatedOutput();
    const speech = { interrupted: false };
    const output = new BargeInSafeOutput(room, () => speech as unknown as voice.SpeechHandle);
    return { room, speech, output };
  }

  it('drops the frame that waited at the pause gate when the paused reply was interrupted', async () => {
    const { room, speech, output } = setup();
    await output.captureFrame(frame(1));
    output.pause();
    const waiting = output.captureFrame(frame(2));
    await tick();
    speech.interrupted = true; // the caller's words confirmed the interruption
    output.resume(); // as agents 1.9 does, before clearing the interrupted reply
    output.clearBuffer();
    await waiting;
    expect(room.played).toEqual([1]);
  });

  it('plays it when the reply resumes after a false interruption', async () => {
    const { room, output } = setup();
    output.pause();
    const waiting = output.captureFrame(frame(7));
    await tick();
    expect(room.played).toEqual([]);
    output.resume();
    await waiting;
    expect(room.played).toEqual([7]);
  });

  it('passes the inner output\'s playback events on, so the session can wait for playout', async () => {
    const { room, output } = setup();
    await output.captureFrame(frame(3));
    output.flush();
    const finished = output.waitForPlayout();
    room.onPlaybackFinished({ playbackPosition: 0.01, interrupted: false });
    expect(await finished).toEqual({ playbackPosition: 0.01, interrupted: false });
    expect(output.canPause).toBe(true);
  });
});
