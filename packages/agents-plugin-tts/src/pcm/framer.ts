import { AudioFrame } from '@livekit/rtc-node';

/**
 * Cuts a stream of PCM_16 into fixed-length AudioFrames: the `write`/`flush` contract of
 * `AudioByteStream` from @livekit/agents, which rebuilds its whole buffer with array spreads on
 * every write (`new Int8Array([...buf, ...bytes])`), which took most of the driver's CPU with many
 * concurrent streams (docs/benchmarks). Here each byte is copied once, into the frame that owns it.
 */
export class PcmFramer {
  readonly sampleRate: number;
  readonly channels: number;
  readonly #frameBytes: number;
  #frame: Int16Array;
  #frameBytesView: Uint8Array;
  #fill = 0;

  constructor(sampleRate: number, channels: number, samplesPerChannel: number) {
    if (!(samplesPerChannel >= 1) || !Number.isInteger(samplesPerChannel)) {
      throw new RangeError(`samplesPerChannel must be a positive integer, got ${samplesPerChannel}`);
    }
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.#frameBytes = samplesPerChannel * channels * 2;
    this.#frame = new Int16Array(samplesPerChannel * channels);
    this.#frameBytesView = new Uint8Array(this.#frame.buffer);
  }

  /** A framer whose frames last `frameMs` (at least one sample). */
  static ofDuration(sampleRate: number, frameMs: number, channels = 1): PcmFramer {
    return new PcmFramer(sampleRate, channels, Math.max(1, Math.round((sampleRate * frameMs) / 1000)));
  }

  /**
   * Frames completed by `data`: samples, or their little-endian bytes (a sample split across two
   * writes of bytes waits for its other byte).
   */
  write(data: Uint8Array | Int16Array): AudioFrame[] {
    const bytes = data instanceof Int16Array ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data;
    const frames: AudioFrame[] = [];
    let offset = 0;
    while (offset < bytes.length) {
      const n = Math.min(this.#frameBytes - this.#fill, bytes.length - offset);
      this.#frameBytesView.set(bytes.subarray(offset, offset + n), this.#fill);
      this.#fill += n;
      offset += n;
      if (this.#fill === this.#frameBytes) frames.push(this.#take(this.#frameBytes));
    }
    return frames;
  }

  /** The rest as one shorter frame (whole samples only; a dangling byte is dropped). */
  flush(): AudioFrame[] {
    const bytes = this.#fill - (this.#fill % (2 * this.channels));
    if (bytes === 0) {
      this.#fill = 0;
      return [];
    }
    return [this.#take(bytes)];
  }

  /** Hands the current frame buffer to an AudioFrame and starts a fresh one. */
  #take(bytes: number): AudioFrame {
    const samples = bytes === this.#frameBytes ? this.#frame : this.#frame.slice(0, bytes / 2);
    const frame = new AudioFrame(samples, this.sampleRate, this.channels, samples.length / this.channels);
    this.#frame = new Int16Array(this.#frameBytes / 2);
    this.#frameBytesView = new Uint8Array(this.#frame.buffer);
    this.#fill = 0;
    return frame;
  }
}
