import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';

const EMPTY = Buffer.alloc(0);

/**
 * One track's PCM16 mono, at whatever rate the provider says it streamed, to the rate the TTS
 * was built for (rtc-node's resampler). Played as is, audio at another rate comes out at the
 * wrong speed and pitch. The resampler is native: `flush()` or `close()` releases it.
 */
export class RateConverter {
  #outputRate: number;
  #resampler: AudioResampler | undefined;

  constructor(outputRate: number) {
    this.#outputRate = outputRate;
  }

  /** Whole samples at `inputRate` → samples at the output rate (fewer at first: the filter fills). */
  push(pcm: Buffer, inputRate: number): Buffer {
    const out: Buffer[] = [];
    if (this.#resampler && this.#resampler.inputRate !== inputRate) out.push(this.flush());
    if (inputRate === this.#outputRate) {
      out.push(pcm);
    } else if (pcm.length >= 2) {
      // MEDIUM, the library's default: speech quality, for ~60 ms held back at a track's start.
      this.#resampler ??= new AudioResampler(inputRate, this.#outputRate, 1, AudioResamplerQuality.MEDIUM);
      const samples = new Int16Array(pcm.length / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
      out.push(...this.#resampler.push(new AudioFrame(samples, inputRate, 1, samples.length)).map(toBuffer));
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** What the filter still holds (the track's audio is complete); releases the resampler. */
  flush(): Buffer {
    const resampler = this.#resampler;
    if (!resampler) return EMPTY;
    this.#resampler = undefined;
    const tail = resampler.flush().map(toBuffer);
    resampler.close();
    return Buffer.concat(tail);
  }

  /** Drops what the filter holds and releases the resampler. */
  close(): void {
    this.#resampler?.close();
    this.#resampler = undefined;
  }
}

function toBuffer(frame: AudioFrame): Buffer {
  const samples = frame.data.subarray(0, frame.samplesPerChannel);
  return Buffer.from(samples.buffer.slice(samples.byteOffset, samples.byteOffset + samples.byteLength));
}
