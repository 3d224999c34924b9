import { AudioFrame } from '@livekit/rtc-node';

/** The longest frame by default: what LiveKit's own plugins hand over (`AudioByteStream`'s 100 ms). */
const DEFAULT_MAX_FRAME_MS = 100;

/** The longest frame when none is asked for: 100 ms, or `frameMs` itself when that is longer. */
export function defaultMaxFrameMs(frameMs: number): number {
  return Math.max(frameMs, DEFAULT_MAX_FRAME_MS);
}

/**
 * Cuts a stream of PCM_16 into AudioFrames whose length is a whole number of `samplesPerChannel`:
 * the `write`/`flush` contract of `AudioByteStream` from @livekit/agents, which rebuilds its whole
 * buffer with array spreads on every write (`new Int8Array([...buf, ...bytes])`), which took most of
 * the driver's CPU with many concurrent streams (docs/benchmarks). Here each byte is copied at most
 * twice: into the short remainder a write leaves, then into the frame that owns it.
 *
 * Audio already in hand leaves together, in frames of up to `maxSamplesPerFrame`: every frame costs
 * the same on LiveKit's per-frame path (stream hops, an FFI request to the audio source) whatever its
 * length, and a provider that sends 85 ms at once gains nothing from four frames instead of one. A
 * frame never waits for audio that has not come, so the first audio leaves as early as with
 * `maxSamplesPerFrame` equal to `samplesPerChannel`.
 */
export class PcmFramer {
  readonly sampleRate: number;
  readonly channels: number;
  /** Bytes of the shortest frame: every frame but a flushed rest is a whole number of them. */
  readonly #unitBytes: number;
  readonly #maxUnits: number;
  /** Less than one unit of audio, waiting for the rest of its frame. */
  readonly #rest: Uint8Array;
  #fill = 0;

  constructor(sampleRate: number, channels: number, samplesPerChannel: number, maxSamplesPerFrame = samplesPerChannel) {
    if (!(samplesPerChannel >= 1) || !Number.isInteger(samplesPerChannel)) {
      throw new RangeError(`samplesPerChannel must be a positive integer, got ${samplesPerChannel}`);
    }
    if (!Number.isInteger(maxSamplesPerFrame) || maxSamplesPerFrame < samplesPerChannel) {
      throw new RangeError(`maxSamplesPerFrame must be an integer of at least samplesPerChannel (${samplesPerChannel}), got ${maxSamplesPerFrame}`);
    }
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.#unitBytes = samplesPerChannel * channels * 2;
    this.#maxUnits = Math.floor(maxSamplesPerFrame / samplesPerChannel);
    this.#rest = new Uint8Array(this.#unitBytes);
  }

  /**
   * A framer whose frames last `frameMs` (at least one sample), or a whole number of `frameMs` up to
   * `maxFrameMs` when that much audio is already in hand.
   */
  static ofDuration(sampleRate: number, frameMs: number, maxFrameMs = frameMs, channels = 1): PcmFramer {
    const unit = Math.max(1, Math.round((sampleRate * frameMs) / 1000));
    return new PcmFramer(sampleRate, channels, unit, Math.max(unit, Math.round((sampleRate * maxFrameMs) / 1000)));
  }

  /**
   * Frames completed by `data`: samples, or their little-endian bytes (a sample split across two
   * writes of bytes waits for its other byte).
   */
  write(data: Uint8Array | Int16Array): AudioFrame[] {
    const bytes = data instanceof Int16Array ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data;
    const frames: AudioFrame[] = [];
    let offset = 0;
    for (;;) {
      const units = Math.min(this.#maxUnits, Math.floor((this.#fill + bytes.length - offset) / this.#unitBytes));
      if (units === 0) break;
      const frame = new Int16Array((units * this.#unitBytes) / 2);
      const view = new Uint8Array(frame.buffer);
      view.set(this.#rest.subarray(0, this.#fill));
      const taken = view.length - this.#fill;
      view.set(bytes.subarray(offset, offset + taken), this.#fill);
      offset += taken;
      this.#fill = 0;
      frames.push(this.#frameOf(frame));
    }
    this.#rest.set(bytes.subarray(offset), this.#fill);
    this.#fill += bytes.length - offset;
    return frames;
  }

  /** The rest as one shorter frame (whole samples only; a dangling byte is dropped). */
  flush(): AudioFrame[] {
    const bytes = this.#fill - (this.#fill % (2 * this.channels));
    this.#fill = 0;
    if (bytes === 0) return [];
    return [this.#frameOf(new Int16Array(this.#rest.slice(0, bytes).buffer))];
  }

  #frameOf(samples: Int16Array): AudioFrame {
    return new AudioFrame(samples, this.sampleRate, this.channels, samples.length / this.channels);
  }
}
