/**
 * The room callers' microphone: a stalled event loop in the caller must not put a silence into
 * its speech (the agent would hear a pause and answer it), and the times it gives for voiced
 * samples must stay those at which the samples leave.
 *
 * The source stands in for rtc-node's AudioSource with the same queue bookkeeping, plus what the
 * native side does with it: it plays the queue out in real time and goes silent when it is dry.
 */
import type { AudioFrame, AudioSource } from '@livekit/rtc-node';
import { afterEach, describe, expect, it } from 'vitest';
import { LEAD_MS, Mic } from '../../bench/room/mic.js';

const RATE = 48_000;

class PlayoutSource {
  #queuedUntil = 0;
  /** Silences that went out because the queue ran dry while a clip was being sent. */
  readonly gaps: number[] = [];
  watching = false;

  get queuedDuration(): number {
    return Math.max(0, this.#queuedUntil - Date.now());
  }

  async captureFrame(frame: AudioFrame): Promise<void> {
    const now = Date.now();
    // Frame arrivals are jittered by timers by a few ms; a dry spell shorter than that is not a gap.
    if (this.watching && this.#queuedUntil > 0 && now - this.#queuedUntil > 5) this.gaps.push(now - this.#queuedUntil);
    this.#queuedUntil = Math.max(this.#queuedUntil, now) + (frame.samplesPerChannel / frame.sampleRate) * 1000;
  }
}

/** Blocks the event loop, as a busy caller process does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One second of "speech" (non-zero samples) with its voiced marks at 100 ms and 900 ms. */
function clip(): { samples: Int16Array; firstVoiced: number; lastVoiced: number } {
  return { samples: new Int16Array(RATE).fill(1000), firstVoiced: RATE / 10, lastVoiced: (RATE * 9) / 10 };
}

describe('the room caller microphone', () => {
  let mic: Mic | undefined;
  afterEach(async () => {
    await mic?.stop();
    mic = undefined;
  });

  async function speakWithStall(stallMs: number): Promise<{ source: PlayoutSource; mic: Mic; heardFirst: number; heardLast: number; startedAt: number }> {
    const source = new PlayoutSource();
    mic = new Mic(source as unknown as AudioSource);
    mic.start();
    await sleep(400);
    source.watching = true;
    const { samples, firstVoiced, lastVoiced } = clip();
    const startedAt = Date.now() + source.queuedDuration;
    const playing = mic.play(samples, firstVoiced, lastVoiced);
    await sleep(300);
    stall(stallMs);
    const [heardFirst, heardLast] = await Promise.all([playing.firstVoicedAt, playing.lastVoicedAt]);
    await playing.done;
    source.watching = false;
    return { source, mic, heardFirst, heardLast, startedAt };
  }

  it('sends no silence inside speech when the caller stalls for less than its lead', async () => {
    const { source, mic, heardFirst, startedAt } = await speakWithStall(LEAD_MS - 130);
    expect(source.gaps).toEqual([]);
    expect(mic.stalls).toBe(0);
    // The first voiced sample is 100 ms into the clip, which starts behind the lead already queued.
    expect(Math.abs(heardFirst - (startedAt + 100))).toBeLessThan(25);
  });

  it('counts a stall longer than its lead, and the times it gives still follow the audio out', async () => {
    const { source, mic, heardFirst, heardLast } = await speakWithStall(LEAD_MS + 250);
    expect(mic.stalls).toBe(1);
    const gap = source.gaps.reduce((a, b) => a + b, 0);
    expect(gap).toBeGreaterThan(150);
    // 800 ms of clip between the marks, plus the silence the stall let out.
    expect(heardLast - heardFirst).toBeGreaterThanOrEqual(800 + gap - 25);
    expect(heardLast - heardFirst).toBeLessThan(800 + gap + 60);
  });

  it('says a clip is done only once its last frame is out', async () => {
    const source = new PlayoutSource();
    mic = new Mic(source as unknown as AudioSource);
    mic.start();
    await sleep(100);
    const samples = new Int16Array(RATE / 5).fill(1000);
    const playing = mic.play(samples, 0, samples.length - 1);
    const lastOut = await playing.lastVoicedAt;
    await playing.done;
    // The mark is exact; Date.now() drops the fraction of its millisecond.
    expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(lastOut));
  });
});
