/** An audio input the test feeds by hand, standing in for a caller's microphone. */
import { voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';

export class PushAudioInput extends voice.AudioInput {
  readonly #controller: ReadableStreamDefaultController<AudioFrame>;

  constructor() {
    super();
    let controller!: ReadableStreamDefaultController<AudioFrame>;
    this.multiStream.addInputStream(
      new ReadableStream<AudioFrame>({
        start(streamController) {
          controller = streamController;
        },
      }),
    );
    this.#controller = controller;
  }

  /** Pushes `durationMs` of silence. */
  pushSilence(durationMs: number, sampleRate = 16_000): void {
    const samples = Math.floor((sampleRate * durationMs) / 1000);
    this.#controller.enqueue(new AudioFrame(new Int16Array(samples), sampleRate, 1, samples));
  }
}
