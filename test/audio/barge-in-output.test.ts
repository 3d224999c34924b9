/**
 * BargeInSafeOutput in front of an output with a pause gate like the room's (agents 1.9
 * room_io/_output.ts): a frame that waits at the gate while paused plays on resume unless the
 * buffer was cleared first. The framework resumes an interrupted reply's output before it clears
 * it; this wrapper must make that frame never play, and leave a genuine resume alone. It also
 * resumes a paused reply when the final transcript is late: if the caller said words since the
 * pause, the wrapper interrupts the reply instead.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BargeInChange, BargeInSafeOutput } from '../../src/audio/barge-in-output.js';

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
    const speech = {
      id: 'speech_1',
      interrupted: false,
      allowInterruptions: true,
      finished: false,
      done() {
        return this.finished;
      },
      interrupt() {
        this.interrupted = true;
      },
    };
    const words: number[] = [];
    const changes: BargeInChange[] = [];
    const output = new BargeInSafeOutput(room, {
      currentSpeech: () => speech as unknown as voice.SpeechHandle,
      callerSpokeSince: (since) => words.some((at) => at >= since),
      onChange: (change) => changes.push(change),
    });
    return { room, speech, output, words, changes };
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

  it('plays it when the reply resumes after a false interruption (no words since the pause)', async () => {
    const { room, speech, output, words, changes } = setup();
    words.push(Date.now() - 1000); // the caller's words of the turn before
    output.pause();
    const waiting = output.captureFrame(frame(7));
    await tick();
    expect(room.played).toEqual([]);
    output.resume();
    await waiting;
    expect(room.played).toEqual([7]);
    expect(speech.interrupted).toBe(false);
    expect(changes.map((c) => c.kind)).toEqual(['paused', 'resumed']);
  });

  it('interrupts instead of resuming when the caller said words since the pause and the final is late', async () => {
    const { room, speech, output, words, changes } = setup();
    await output.captureFrame(frame(1));
    output.pause();
    const waiting = output.captureFrame(frame(2));
    await tick();
    words.push(Date.now()); // an interim transcript came; the final did not, before the timeout
    output.resume(); // the framework's false-interruption resume
    await waiting;
    expect(room.played).toEqual([1]);
    expect(speech.interrupted).toBe(true);
    expect(changes).toEqual([
      { kind: 'paused', speechId: 'speech_1' },
      { kind: 'dropped', speechId: 'speech_1', reason: 'caller_said_words' },
    ]);
  });

  it('resumes a reply that no longer allows interruptions, words or not (interrupting it would throw)', async () => {
    const { room, speech, output, words } = setup();
    output.pause();
    const waiting = output.captureFrame(frame(5));
    await tick();
    speech.allowInterruptions = false;
    words.push(Date.now());
    output.resume();
    await waiting;
    expect(room.played).toEqual([5]);
    expect(speech.interrupted).toBe(false);
  });

  it('reports one pause per reply, and nothing for a reply that ended before the resume', async () => {
    const { speech, output, words, changes } = setup();
    output.pause();
    output.pause(); // the framework pauses again as the caller's speech goes on
    speech.finished = true;
    words.push(Date.now());
    output.resume();
    expect(speech.interrupted).toBe(false);
    expect(changes.map((c) => c.kind)).toEqual(['paused']);
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
