/**
 * The participant's microphone: 10 ms frames into an AudioSource at real-time pace, silence when
 * nothing is being said, as a real microphone sends (the worker's VAD and the STT need the
 * silence after speech to end the turn).
 *
 * We pace it ourselves against an absolute schedule rather than letting captureFrame's queue do
 * it: captureFrame accepts a whole second at once before it starts to wait, so the moment a frame
 * is handed over says little about when it leaves. A sample's time is taken as the wall clock at
 * hand-over plus what is still queued ahead of it (the SDK's own `queuedDuration`) plus its offset
 * in the frame — within about one 10 ms frame of when WebRTC takes it.
 *
 * The schedule runs LEAD_MS ahead, so that much is always queued: a caller process whose event
 * loop stalls (a loaded machine, a node killed beside it) would otherwise leave a silence inside
 * its speech, which the agent rightly hears as a pause and answers. Stalls shorter than the lead
 * leave no trace in what is sent; a longer one is counted in `stalls`.
 */
import { AudioFrame, type AudioSource } from '@livekit/rtc-node';

const RATE = 48_000;
const FRAME = RATE / 100;
const FRAME_MS = 10;
export const LEAD_MS = 250;

export interface Playing {
  /** Wall-clock ms (Date.now() scale) when the clip's first / last voiced sample left. */
  firstVoicedAt: Promise<number>;
  lastVoicedAt: Promise<number>;
  /** The whole clip, trailing silence included, is out. */
  done: Promise<void>;
}

interface Current {
  samples: Int16Array;
  offset: number;
  firstVoiced: number;
  lastVoiced: number;
  resolveFirst(at: number): void;
  resolveLast(at: number): void;
  resolveDone(): void;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export class Mic {
  readonly #source: AudioSource;
  #current: Current | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  /** Times the pump fell further behind than its lead: the queue ran dry, a gap went out. */
  stalls = 0;

  constructor(source: AudioSource) {
    this.#source = source;
  }

  /** A clip is still being sent (a failed turn may leave one behind). */
  get busy(): boolean {
    return this.#current !== undefined;
  }

  start(): void {
    this.#loop ??= this.#pump();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  /** Queues a clip (48 kHz mono) after whatever is playing; voiced marks are sample indices. */
  play(samples: Int16Array, firstVoiced: number, lastVoiced: number): Playing {
    if (this.#current) throw new Error('the microphone is already playing a clip');
    const first = deferred<number>();
    const last = deferred<number>();
    const done = deferred<void>();
    this.#current = {
      samples,
      offset: 0,
      firstVoiced,
      lastVoiced,
      resolveFirst: first.resolve,
      resolveLast: last.resolve,
      resolveDone: done.resolve,
    };
    return { firstVoicedAt: first.promise, lastVoicedAt: last.promise, done: done.promise };
  }

  async #pump(): Promise<void> {
    let t0 = performance.now() - LEAD_MS;
    let k = 0;
    while (!this.#stopped) {
      const late = performance.now() - (t0 + k * FRAME_MS);
      if (late < -1) await new Promise((resolve) => setTimeout(resolve, -late));
      else if (late > LEAD_MS + FRAME_MS) {
        // The queue ran dry (for more than a frame: the lead's own first burst is late by the lead
        // itself): the gap has gone out already, so build the lead again from now rather than
        // burst the whole backlog into the queue.
        this.stalls++;
        t0 = performance.now() - LEAD_MS;
        k = 0;
      }
      const data = new Int16Array(FRAME);
      const clip = this.#current;
      let marks: Array<[number, (at: number) => void]> = [];
      if (clip) {
        const start = clip.offset;
        const part = clip.samples.subarray(start, Math.min(clip.samples.length, start + FRAME));
        data.set(part);
        clip.offset += part.length;
        if (clip.firstVoiced >= start && clip.firstVoiced < start + FRAME) marks.push([clip.firstVoiced - start, clip.resolveFirst]);
        if (clip.lastVoiced >= start && clip.lastVoiced < start + FRAME) marks.push([clip.lastVoiced - start, clip.resolveLast]);
      }
      const queuedMs = this.#source.queuedDuration;
      const leavesAt = Date.now() + queuedMs;
      if (clip && clip.offset >= clip.samples.length) {
        this.#current = undefined;
        // Done means out, not handed over: the lead is still ahead of the last frame.
        setTimeout(clip.resolveDone, queuedMs + FRAME_MS);
      }
      for (const [index, resolve] of marks) resolve(leavesAt + (index * 1000) / RATE);
      marks = [];
      await this.#source.captureFrame(new AudioFrame(data, RATE, 1, FRAME));
      k++;
    }
  }
}
