import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';

export { AudioResamplerQuality };

/**
 * A stream of PCM16 at whatever rate it comes, to one output rate (rtc-node's native resampler,
 * the one LiveKit itself uses). Audio at the output rate passes through untouched; a change of
 * input rate drains what the filter holds for the old one first, so no sample is lost. The
 * resampler is native: `flush()` or `close()` releases it.
 */
export class PcmResampler {
  readonly outputRate: number;
  readonly channels: number;
  readonly #quality: AudioResamplerQuality;
  #resampler: AudioResampler | undefined;

  /** `quality`: MEDIUM, the library's default, is speech quality for ~60 ms held back at the start. */
  constructor(outputRate: number, opts: { channels?: number; quality?: AudioResamplerQuality } = {}) {
    this.outputRate = outputRate;
    this.channels = opts.channels ?? 1;
    this.#quality = opts.quality ?? AudioResamplerQuality.MEDIUM;
  }

  /** Interleaved samples at `inputRate` → blocks at the output rate (fewer at first: the filter fills). */
  push(samples: Int16Array, inputRate: number): Int16Array[] {
    const out: Int16Array[] = [];
    if (this.#resampler && this.#resampler.inputRate !== inputRate) out.push(...this.flush());
    if (samples.length === 0) return out;
    if (inputRate === this.outputRate) {
      out.push(samples);
      return out;
    }
    this.#resampler ??= new AudioResampler(inputRate, this.outputRate, this.channels, this.#quality);
    const frame = new AudioFrame(ownBuffer(samples), inputRate, this.channels, samples.length / this.channels);
    out.push(...this.#resampler.push(frame).map(samplesOf).filter((b) => b.length > 0));
    return out;
  }

  /** What the filter still holds (the input is complete); releases the native resampler. */
  flush(): Int16Array[] {
    const resampler = this.#resampler;
    if (!resampler) return [];
    this.#resampler = undefined;
    try {
      return resampler.flush().map(samplesOf).filter((b) => b.length > 0);
    } finally {
      resampler.close();
    }
  }

  /** Drops what the filter holds and releases the native resampler. */
  close(): void {
    this.#resampler?.close();
    this.#resampler = undefined;
  }
}

/**
 * A whole clip's frames at `outputRate`, the filter's tail included. Frames already at that rate
 * are kept as they are. Audio written to a LiveKit output directly (a cached acknowledgement)
 * must arrive at the output's rate: rtc-node's AudioSource drops frames at another rate silently.
 */
export function resampleClip(
  frames: readonly AudioFrame[],
  outputRate: number,
  quality: AudioResamplerQuality = AudioResamplerQuality.MEDIUM,
): AudioFrame[] {
  if (frames.every((f) => f.sampleRate === outputRate)) return [...frames];
  const out: AudioFrame[] = [];
  let resampler: PcmResampler | undefined;
  const emit = (blocks: Int16Array[], channels: number) => {
    for (const b of blocks) out.push(new AudioFrame(b, outputRate, channels, b.length / channels));
  };
  try {
    for (const frame of frames) {
      if (resampler && resampler.channels !== frame.channels) {
        emit(resampler.flush(), resampler.channels);
        resampler = undefined;
      }
      resampler ??= new PcmResampler(outputRate, { channels: frame.channels, quality });
      if (frame.sampleRate === outputRate) {
        emit(resampler.flush(), frame.channels);
        out.push(frame);
        continue;
      }
      emit(resampler.push(samplesOf(frame), frame.sampleRate), frame.channels);
    }
    if (resampler) emit(resampler.flush(), resampler.channels);
  } finally {
    // A push that threw leaves the native resampler open.
    resampler?.close();
  }
  return out;
}

/** A frame's samples, without the spare room rtc-node's frames may carry past `samplesPerChannel`. */
function samplesOf(frame: AudioFrame): Int16Array {
  return frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
}

/**
 * rtc-node 0.13.35 hands the native side a pointer to the start of `data.buffer`, ignoring the
 * view's offset: a sub-view of a larger buffer (a slice of a socket message, a block of a clip)
 * would be resampled from the wrong bytes. Such views are copied into a buffer of their own.
 */
function ownBuffer(samples: Int16Array): Int16Array {
  return samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
}
