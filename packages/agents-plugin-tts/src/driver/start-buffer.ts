import type { tts } from '@livekit/agents';

/**
 * A jitter buffer before a stream's first frame: frames are held until `holdMs` of audio is in
 * hand, `holdMs` has passed since the first of them was ready, or a segment's audio is complete
 * (its `final` frame), whichever comes first; then all of them go out and every later frame goes
 * straight through. Playback starts at the first frame, so the held audio is the cushion that a
 * provider's delivery gaps (Resemble sends bursts) eat into before the listener hears a hole.
 * `holdMs` 0 passes everything through.
 */
export class StartBuffer {
  #holdMs: number;
  #put: (audio: tts.SynthesizedAudio) => void;
  #held: tts.SynthesizedAudio[] = [];
  #heldMs = 0;
  #passing: boolean;
  #deadline: NodeJS.Timeout | undefined;

  constructor(holdMs: number, put: (audio: tts.SynthesizedAudio) => void) {
    this.#holdMs = holdMs;
    this.#put = put;
    this.#passing = holdMs <= 0;
  }

  put(audio: tts.SynthesizedAudio): void {
    if (this.#passing) return this.#put(audio);
    this.#held.push(audio);
    this.#heldMs += (audio.frame.samplesPerChannel / audio.frame.sampleRate) * 1000;
    if (!this.#deadline) {
      this.#deadline = setTimeout(() => this.release(), this.#holdMs);
      this.#deadline.unref?.();
    }
    if (this.#heldMs >= this.#holdMs || audio.final) this.release();
  }

  /** Everything held goes out now; later frames pass straight through. */
  release(): void {
    this.#stop();
    const held = this.#held;
    this.#held = [];
    for (const audio of held) this.#put(audio);
  }

  /** Interrupted: what is held is dropped, and nothing is held any more. */
  drop(): void {
    this.#stop();
    this.#held = [];
  }

  #stop(): void {
    this.#passing = true;
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }
}
