/**
 * A TTS for tests that needs no network: every piece of text becomes a tone whose length is
 * proportional to the text, so assertions can tie audio to the words that produced it.
 */
import { type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';

export interface ToneTTSOptions {
  /** @defaultValue 24000 */
  sampleRate: number;
  /** Audio produced per character of text. @defaultValue 10 */
  msPerChar: number;
  /** Longest frame emitted. @defaultValue 20 */
  frameMs: number;
  /** @defaultValue 440 */
  frequencyHz: number;
  /** Peak sample value. @defaultValue 8000 */
  amplitude: number;
}

export const DEFAULT_TONE_TTS_OPTIONS: ToneTTSOptions = {
  sampleRate: 24000,
  msPerChar: 10,
  frameMs: 20,
  frequencyHz: 440,
  amplitude: 8000,
};

/** The frames `text` becomes: deterministic, so two calls give identical samples. */
export function toneFrames(text: string, opts: ToneTTSOptions = DEFAULT_TONE_TTS_OPTIONS): AudioFrame[] {
  const totalSamples = Math.round((text.length * opts.msPerChar * opts.sampleRate) / 1000);
  const samplesPerFrame = Math.max(1, Math.round((opts.frameMs * opts.sampleRate) / 1000));
  const frames: AudioFrame[] = [];
  for (let start = 0; start < totalSamples; start += samplesPerFrame) {
    const count = Math.min(samplesPerFrame, totalSamples - start);
    const data = new Int16Array(count);
    for (let i = 0; i < count; i++) {
      const t = (start + i) / opts.sampleRate;
      data[i] = Math.round(opts.amplitude * Math.sin(2 * Math.PI * opts.frequencyHz * t));
    }
    frames.push(new AudioFrame(data, opts.sampleRate, 1, count));
  }
  return frames;
}

export class ToneTTS extends tts.TTS {
  label = 'test.ToneTTS';
  readonly opts: ToneTTSOptions;
  /** Every piece of text synthesized, in the order it arrived, across all streams. */
  readonly received: string[] = [];
  streamsOpened = 0;

  constructor(opts: Partial<ToneTTSOptions> = {}) {
    const merged = { ...DEFAULT_TONE_TTS_OPTIONS, ...opts };
    super(merged.sampleRate, 1, { streaming: true });
    this.opts = merged;
  }

  /** All text synthesized so far, joined. */
  get spokenText(): string {
    return this.received.join('');
  }

  synthesize(
    text: string,
    connOptions: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    abortSignal?: AbortSignal,
  ): tts.ChunkedStream {
    return new ToneChunkedStream(this, text, connOptions, abortSignal);
  }

  stream(options?: { connOptions?: APIConnectOptions }): tts.SynthesizeStream {
    this.streamsOpened++;
    return new ToneSynthesizeStream(this, options?.connOptions ?? DEFAULT_API_CONNECT_OPTIONS);
  }
}

class ToneChunkedStream extends tts.ChunkedStream {
  label = 'test.ToneChunkedStream';
  readonly #tts: ToneTTS;

  constructor(owner: ToneTTS, text: string, connOptions: APIConnectOptions, abortSignal?: AbortSignal) {
    super(text, owner, connOptions, abortSignal);
    this.#tts = owner;
  }

  protected async run(): Promise<void> {
    this.#tts.received.push(this.inputText);
    const frames = toneFrames(this.inputText, this.#tts.opts);
    frames.forEach((frame, index) => {
      this.queue.put({
        requestId: 'tone',
        segmentId: 'tone',
        frame,
        final: index === frames.length - 1,
      });
    });
  }
}

class ToneSynthesizeStream extends tts.SynthesizeStream {
  label = 'test.ToneSynthesizeStream';
  readonly #tts: ToneTTS;

  constructor(owner: ToneTTS, connOptions: APIConnectOptions) {
    super(owner, connOptions);
    this.#tts = owner;
  }

  protected async run(): Promise<void> {
    let segment = 0;
    for await (const item of this.input) {
      if (this.abortSignal.aborted) break;
      if (item === ToneSynthesizeStream.FLUSH_SENTINEL) {
        segment++;
        continue;
      }
      if (item.length === 0) continue;
      this.markStarted();
      this.#tts.received.push(item);
      for (const frame of toneFrames(item, this.#tts.opts)) {
        this.queue.put({
          requestId: `tone-${segment}`,
          segmentId: `tone-${segment}`,
          frame,
          final: false,
        });
      }
    }
  }
}
