import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';

/**
 * Turns eSpeak's irregular sample blocks (about 95 ms each, 22.05 kHz) into PCM_16 LE frames of a
 * fixed duration at the rate the client asked for. Resampling is rtc-node's native resampler, the
 * same one LiveKit uses, so the audio the client gets is what a real rate conversion produces.
 */
export class PcmFramer {
  readonly inputRate: number;
  readonly outputRate: number;
  #resampler?: AudioResampler;
  #frameBytes: number;
  #pending: Buffer = Buffer.alloc(0);

  constructor(options: { inputRate: number; outputRate: number; frameMs: number }) {
    this.inputRate = options.inputRate;
    this.outputRate = options.outputRate;
    this.#frameBytes = Math.max(2, Math.round((options.outputRate * options.frameMs) / 1000) * 2);
    if (options.inputRate !== options.outputRate) {
      this.#resampler = new AudioResampler(options.inputRate, options.outputRate, 1, AudioResamplerQuality.MEDIUM);
    }
  }

  /** Frames that are complete after adding `samples`. */
  push(samples: Int16Array): Buffer[] {
    if (!this.#resampler) return this.#append([samples]);
    const frame = new AudioFrame(samples, this.inputRate, 1, samples.length);
    return this.#append(this.#resampler.push(frame).map((out) => out.data));
  }

  /** Everything still held, the last frame possibly shorter. Releases the resampler. */
  end(): Buffer[] {
    const frames = this.#resampler ? this.#append(this.#resampler.flush().map((out) => out.data)) : [];
    this.close();
    if (this.#pending.length > 0) frames.push(this.#pending);
    this.#pending = Buffer.alloc(0);
    return frames;
  }

  close(): void {
    this.#resampler?.close();
    this.#resampler = undefined;
  }

  #append(blocks: Int16Array[]): Buffer[] {
    const parts = [this.#pending, ...blocks.map((block) => pcmBytes(block))];
    let buffered = Buffer.concat(parts);
    const frames: Buffer[] = [];
    while (buffered.length >= this.#frameBytes) {
      frames.push(buffered.subarray(0, this.#frameBytes));
      buffered = buffered.subarray(this.#frameBytes);
    }
    this.#pending = Buffer.from(buffered);
    return frames;
  }
}

/** Little-endian bytes of 16-bit samples (Node only runs on little-endian hosts we support). */
function pcmBytes(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}
