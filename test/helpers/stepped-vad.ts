/**
 * A VAD stream driven one frame at a time, for tests that need to know exactly what it had said
 * once it had a given frame.
 *
 * The stream's loop asks its input for the next frame only once it has run every window the frames
 * so far allow, so its read count says how many frames it has finished with: `push` returns then,
 * with the events it sent read, not after a guessed delay.
 */
import { type VADEvent, VADEventType, type VADStream } from '@livekit/agents';
import { type AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import { withTimeout } from './async.js';

/** Silero's rate: frames at any other are resampled to it (the plugin's QUICK resampler). */
export const MODEL_RATE = 16000;

/** Drives one VAD stream a frame at a time and records what it said. */
export class SteppedStream {
  readonly events: VADEvent[] = [];
  readonly #stream: VADStream;
  #reads = 0;
  #pushed = 0;
  #sent = 0;
  #wake: (() => void) | undefined;

  constructor(stream: VADStream) {
    this.#stream = stream;
    // `inputReader` and `sendVADEvent` are the base class's protected members: this only counts
    // their calls.
    const internals = stream as unknown as { inputReader: ReadableStreamDefaultReader<unknown>; sendVADEvent(event: VADEvent): boolean };
    const reader = internals.inputReader;
    const read = reader.read.bind(reader);
    reader.read = () => {
      this.#reads++;
      this.#wake?.();
      return read();
    };
    const send = internals.sendVADEvent.bind(stream);
    internals.sendVADEvent = (event) => {
      const sent = send(event);
      if (sent) this.#sent++;
      return sent;
    };
    void (async () => {
      for await (const event of stream) {
        this.events.push(event);
        this.#wake?.();
      }
    })();
  }

  /** Pushes one frame and returns once the stream has run every window it can and its events are read. */
  async push(frame: AudioFrame): Promise<void> {
    this.#pushed++;
    this.#stream.pushFrame(frame);
    await withTimeout(
      (async () => {
        // The loop's first read (for the first frame) came before the count began.
        while (this.#reads < this.#pushed || this.events.length < this.#sent) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      })(),
      10_000,
      `the VAD to finish frame ${this.#pushed}`,
    );
  }

  windows(): VADEvent[] {
    return this.events.filter((e) => e.type === VADEventType.INFERENCE_DONE);
  }

  close(): void {
    this.#stream.close();
  }
}

/** How many model-rate samples the plugin's resampler has produced after each frame (none at 16 kHz). */
export function modelSamplesAfterEach(frames: AudioFrame[]): number[] {
  const rate = frames[0]!.sampleRate;
  const resampler = rate === MODEL_RATE ? undefined : new AudioResampler(rate, MODEL_RATE, 1, AudioResamplerQuality.QUICK);
  let total = 0;
  const after = frames.map((frame) => {
    total += resampler ? resampler.push(frame).reduce((n, f) => n + f.samplesPerChannel, 0) : frame.samplesPerChannel;
    return total;
  });
  resampler?.close();
  return after;
}
