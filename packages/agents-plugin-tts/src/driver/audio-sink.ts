import type { tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { PcmFramer } from '../pcm/framer.js';
import { Pcm16Reassembler, pcmBytes, pcmSamples } from '../pcm/pcm.js';
import { PcmResampler } from '../pcm/resample.js';
import { StartBuffer } from './start-buffer.js';

/**
 * One source of provider audio (a track's key, a `/tts/bytes` body): bytes as they came — odd
 * lengths, a RIFF header, any rate — to whole samples at the sink's rate.
 */
export class AudioInput {
  readonly #outputRate: number;
  #reassembler = new Pcm16Reassembler();
  /** Only once the provider streamed at another rate than asked. */
  #resampler: PcmResampler | undefined;
  #droppedBytes = 0;

  constructor(outputRate: number) {
    this.#outputRate = outputRate;
  }

  /** Bytes a track ended on half a sample of (logged by the caller, never played). */
  get droppedBytes(): number {
    return this.#droppedBytes + this.#reassembler.droppedBytes;
  }

  /** Bytes at `sampleRate` → little-endian samples at the output rate (possibly none yet). */
  push(bytes: Buffer, sampleRate = this.#outputRate): Buffer {
    return this.#convert(this.#reassembler.push(bytes), sampleRate);
  }

  /** The source is complete: what the reassembler and the rate filter still hold. */
  end(sampleRate = this.#outputRate): Buffer {
    const tail = this.#convert(this.#reassembler.end(), sampleRate);
    const held = this.#resampler?.flush() ?? [];
    this.#resampler = undefined;
    return held.length ? Buffer.concat([tail, ...held.map(pcmBytes)]) : tail;
  }

  /** The same source continues on a fresh byte stream (a new key): a header may come again. */
  nextKey(sampleRate = this.#outputRate): Buffer {
    const tail = this.#convert(this.#reassembler.end(), sampleRate);
    this.#droppedBytes += this.#reassembler.droppedBytes;
    this.#reassembler = new Pcm16Reassembler();
    return tail;
  }

  /** The source starts over (a retry): nothing held is kept. */
  reset(): void {
    this.#droppedBytes += this.#reassembler.droppedBytes;
    this.#reassembler = new Pcm16Reassembler();
    this.close();
  }

  /** Releases the native rate filter (a source that will not end normally). */
  close(): void {
    this.#resampler?.close();
    this.#resampler = undefined;
  }

  #convert(pcm: Buffer, sampleRate: number): Buffer {
    if (sampleRate === this.#outputRate && !this.#resampler) return pcm;
    this.#resampler ??= new PcmResampler(this.#outputRate);
    const blocks = this.#resampler.push(pcmSamples(pcm), sampleRate).map(pcmBytes);
    return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks);
  }
}

export interface AudioSinkOptions {
  sampleRate: number;
  /** Length of the shortest frame; every frame but a source's last is a whole number of them. */
  frameMs: number;
  /** Audio already in hand leaves in frames of up to this length. */
  maxFrameMs: number;
  /** Audio gathered before the first frame goes out (see StartBuffer); 0 passes frames at once. */
  startBufferMs: number;
}

/** A stream's sink as the TTS's options and its provider's codec set it. */
export function audioSinkOptions(
  codec: { sampleRate: number; startBufferMs?: number },
  opts: { frameMs: number; maxFrameMs: number; startBufferMs?: number },
): AudioSinkOptions {
  return { sampleRate: codec.sampleRate, frameMs: opts.frameMs, maxFrameMs: opts.maxFrameMs, startBufferMs: opts.startBufferMs ?? codec.startBufferMs ?? 0 };
}

/**
 * Where a stream's provider audio becomes the frames it hands to LiveKit: each source's bytes are
 * reassembled and brought to the stream's rate (`input()`), cut into frames of `frameMs` to `maxFrameMs`
 * (`frames()`), and held in the start buffer until enough is in hand (`put()`). Both `stream()`
 * and `synthesize()` — the WebSocket tracks and Cartesia's `/tts/bytes` body — go through one.
 */
export class AudioSink {
  readonly sampleRate: number;
  readonly #framer: PcmFramer;
  readonly #start: StartBuffer;

  constructor(opts: AudioSinkOptions, put: (audio: tts.SynthesizedAudio) => void) {
    this.sampleRate = opts.sampleRate;
    this.#framer = PcmFramer.ofDuration(opts.sampleRate, opts.frameMs, opts.maxFrameMs);
    this.#start = new StartBuffer(opts.startBufferMs, put);
  }

  /** A new source of audio for this stream. */
  input(): AudioInput {
    return new AudioInput(this.sampleRate);
  }

  /** Frames completed by these samples (at the sink's rate, from `AudioInput`). */
  frames(pcm: Buffer): AudioFrame[] {
    return this.#framer.write(pcm);
  }

  /** A source's audio ended: what is left of its last frame, as one shorter frame. */
  flushFrames(): AudioFrame[] {
    return this.#framer.flush();
  }

  /** A frame, in play order, through the start buffer. */
  put(audio: tts.SynthesizedAudio): void {
    this.#start.put(audio);
  }

  /** The stream is complete: what the start buffer holds goes out. */
  release(): void {
    this.#start.release();
  }

  /** Interrupted: what the start buffer holds is dropped. */
  drop(): void {
    this.#start.drop();
  }
}
