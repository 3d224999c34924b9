/**
 * The input audio buffer of a realtime session, with server_vad as a plain energy detector: a
 * 10 ms window whose RMS reaches the threshold is speech. Speech starts at the first such window
 * (`audio_start_ms` reaches back `prefix_padding_ms`, as OpenAI's does) and stops once
 * `silence_duration_ms` of non-speech windows followed (`audio_end_ms` includes that silence).
 * Times count from the first sample appended to the session. While idle only the prefix padding
 * is kept, so a long quiet session holds no memory; with turn detection off everything is kept
 * until the client commits or clears.
 */
import { concatSamples } from './pcm.js';

export const SAMPLE_RATE = 24_000;
const WINDOW = SAMPLE_RATE / 100;

export interface ServerVad {
  prefixPaddingMs: number;
  silenceDurationMs: number;
}

export type VadEvent =
  | { type: 'speech_started'; audioStartMs: number }
  | { type: 'speech_stopped'; audioEndMs: number; samples: Int16Array };

const toMs = (samples: number): number => Math.round((samples * 1000) / SAMPLE_RATE);
const toSamples = (ms: number): number => Math.round((ms * SAMPLE_RATE) / 1000);

export class InputAudioBuffer {
  /** Samples appended over the session (the clock of audio_start_ms / audio_end_ms). */
  #total = 0;
  /** Retained audio, oldest first; `#retainedStart` is the absolute index of its first sample. */
  #parts: Int16Array[] = [];
  #retainedStart = 0;
  #speechStart: number | undefined;
  #silence = 0;
  #windowSum = 0;
  #windowFill = 0;

  /** Milliseconds of audio a commit would take now. */
  get bufferedMs(): number {
    return toMs(this.#total - this.#retainedStart);
  }

  get speaking(): boolean {
    return this.#speechStart !== undefined;
  }

  append(samples: Int16Array, vad: ServerVad | null, threshold: number): VadEvent[] {
    const events: VadEvent[] = [];
    const base = this.#total;
    this.#parts.push(samples);
    this.#total += samples.length;
    if (!vad) return events;
    for (let i = 0; i < samples.length; i++) {
      this.#windowSum += samples[i]! * samples[i]!;
      if (++this.#windowFill < WINDOW) continue;
      const windowEnd = base + i + 1;
      const loud = Math.sqrt(this.#windowSum / WINDOW) / 32768 >= threshold;
      this.#windowSum = 0;
      this.#windowFill = 0;
      const event = this.#onWindow(windowEnd, loud, vad);
      if (event) events.push(event);
    }
    if (!this.speaking) this.#trim(this.#total - toSamples(vad.prefixPaddingMs) - WINDOW);
    return events;
  }

  #onWindow(windowEnd: number, loud: boolean, vad: ServerVad): VadEvent | undefined {
    if (this.#speechStart === undefined) {
      if (!loud) return undefined;
      this.#speechStart = Math.max(this.#retainedStart, windowEnd - WINDOW - toSamples(vad.prefixPaddingMs));
      this.#silence = 0;
      return { type: 'speech_started', audioStartMs: toMs(this.#speechStart) };
    }
    if (loud) {
      this.#silence = 0;
      return undefined;
    }
    this.#silence += WINDOW;
    if (this.#silence < toSamples(vad.silenceDurationMs)) return undefined;
    const samples = this.#slice(this.#speechStart, windowEnd);
    this.#speechStart = undefined;
    this.#trim(windowEnd);
    return { type: 'speech_stopped', audioEndMs: toMs(windowEnd), samples };
  }

  /** Takes everything retained (an explicit commit) and ends any speech in progress. */
  commit(): Int16Array {
    const samples = this.#slice(this.#retainedStart, this.#total);
    this.clear();
    return samples;
  }

  clear(): void {
    this.#parts = [];
    this.#retainedStart = this.#total;
    this.#speechStart = undefined;
    this.#silence = 0;
  }

  #slice(from: number, to: number): Int16Array {
    const all = concatSamples(this.#parts);
    return all.slice(from - this.#retainedStart, to - this.#retainedStart);
  }

  /** Drops whole parts that end before `before` (absolute sample index). */
  #trim(before: number): void {
    while (this.#parts.length > 0 && this.#retainedStart + this.#parts[0]!.length <= before) {
      this.#retainedStart += this.#parts.shift()!.length;
    }
    if (this.#retainedStart < before && this.#parts.length > 0) {
      const cut = before - this.#retainedStart;
      this.#parts[0] = this.#parts[0]!.subarray(cut);
      this.#retainedStart = before;
    }
  }
}
