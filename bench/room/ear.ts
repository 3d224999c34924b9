/**
 * The participant's ear on the agent's track: every 10 ms frame with its arrival time and RMS.
 * Frames flow even while the agent is silent (the subscriber's jitter buffer plays out silence),
 * so energy, not arrival, tells speech.
 */
import { AudioStream, type RemoteTrack } from '@livekit/rtc-node';
import { zeroCrossingHz } from '../../test/e2e/clients/agent.js';
import { arrivalOf } from '../../test/helpers/frame-arrival.js';

export interface Heard {
  /** Date.now() when the frame was read. */
  at: number;
  rms: number;
  /**
   * The frame's tone (zero crossings, src: test/e2e/clients/agent.ts), 0 when it has fewer than
   * two: the Cartesia fake's audible voice gives each piece of text its own tone (bench/room/pitch.ts).
   */
  hz: number;
  ms: number;
  /** Position since the last mark. */
  index: number;
}

type Waiter = { check: () => boolean };

export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

export class Ear {
  /** Frames since the last {@link mark}. */
  frames: Heard[] = [];
  #waiters = new Set<Waiter>();
  #closed = false;
  /** Bumped by {@link follow}: a read loop of an earlier track stops. */
  #generation = 0;
  /** Largest gap between two frame reads (event-loop stalls make reads bunch up). */
  maxReadGapMs = 0;
  #lastAt = 0;

  constructor(track: RemoteTrack) {
    void this.#read(track, this.#generation);
  }

  /**
   * Listens to `track` from now on: after a reconnect the agent's audio arrives on a new track
   * (the old one sends nothing more).
   */
  follow(track: RemoteTrack): void {
    void this.#read(track, ++this.#generation);
  }

  async #read(track: RemoteTrack, generation: number): Promise<void> {
    const stream = new AudioStream(track, { sampleRate: 48_000, numChannels: 1, frameSizeMs: 10 });
    for await (const frame of stream) {
      if (this.#closed || generation !== this.#generation) break;
      const at = Date.now();
      if (this.#lastAt) this.maxReadGapMs = Math.max(this.maxReadGapMs, at - this.#lastAt);
      this.#lastAt = at;
      this.frames.push({ at, rms: rms(frame.data), hz: Math.round(zeroCrossingHz(frame.data, frame.sampleRate)), ms: (frame.samplesPerChannel * 1000) / frame.sampleRate, index: this.frames.length });
      for (const waiter of [...this.#waiters]) if (waiter.check()) this.#waiters.delete(waiter);
    }
  }

  /** Forgets the frames so far (turn boundaries); indices in later results count from here. */
  mark(): void {
    this.frames = [];
  }

  /**
   * Resolves with the first result `probe` gives (called on every new frame and at once), or
   * undefined when `deadline` (Date.now() ms) passes first.
   */
  until<T>(probe: () => T | undefined, deadline: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        check: () => {
          const value = probe();
          if (value === undefined) return false;
          clearTimeout(timer);
          resolve(value);
          return true;
        },
      };
      if (waiter.check()) return;
      this.#waiters.add(waiter);
      timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(probe());
      }, Math.max(0, deadline - Date.now()));
    });
  }

  /** When `frame` really arrived (its read time bounded by the frames read after it). */
  arrivalOf(frame: Heard): number {
    return arrivalOf(this.frames, frame.index);
  }

  /** First frame at or above `threshold` that arrived after `after`. */
  firstLoud(after: number, threshold: number, from = 0): Heard | undefined {
    for (let i = from; i < this.frames.length; i++) {
      const f = this.frames[i]!;
      if (f.at > after && f.rms >= threshold) return f;
    }
    return undefined;
  }

  /** First frame after `after` that starts a run of quiet frames lasting `quietMs`. */
  firstQuietRun(after: number, threshold: number, quietMs: number): Heard | undefined {
    let start = -1;
    let run = 0;
    for (let i = 0; i < this.frames.length; i++) {
      const f = this.frames[i]!;
      if (f.at <= after) continue;
      if (f.rms >= threshold) {
        start = -1;
        run = 0;
        continue;
      }
      if (start < 0) start = i;
      run += f.ms;
      if (run >= quietMs) return this.frames[start];
    }
    return undefined;
  }

  /** Quiet for the last `quietMs` (and at least that much heard since the mark). */
  quietFor(threshold: number, quietMs: number): boolean {
    let run = 0;
    for (let i = this.frames.length - 1; i >= 0; i--) {
      if (this.frames[i]!.rms >= threshold) return false;
      run += this.frames[i]!.ms;
      if (run >= quietMs) return true;
    }
    return false;
  }

  close(): void {
    this.#closed = true;
    // The read loop holds the stream's reader: it stops at the next frame, and leaving the
    // for-await cancels the stream.
  }
}
