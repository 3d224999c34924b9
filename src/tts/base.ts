import { APIConnectionError, APIError, type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, tts } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { AdaptiveFirstChunk } from '../latency/adaptive.js';
import type { ProviderCodec } from './codec.js';
import type { DriverOptions } from './options.js';
import { type PoolStats, SocketPool, type SocketPoolOptions } from './pool.js';
import { DriverStream } from './stream.js';
import type { TimelineEvents } from './timeline.js';

/**
 * What every firstword provider shares: one persistent socket pool, one stream driver, one
 * timeline of what happened. A provider subclass only supplies its codec.
 */
export abstract class FirstwordTTS extends tts.TTS {
  /** Chunk / send / first byte / first frame / interruption events, for budgets and charts. */
  readonly timeline = new EventEmitter<TimelineEvents>();
  #codec: ProviderCodec;
  #pool: SocketPool;
  #driver: DriverOptions;
  #adaptive: AdaptiveFirstChunk | undefined;

  protected constructor(
    codec: ProviderCodec,
    driver: DriverOptions,
    pool: Partial<SocketPoolOptions>,
    capabilities: { alignedTranscript: boolean },
  ) {
    super(codec.sampleRate, 1, { streaming: true, alignedTranscript: capabilities.alignedTranscript });
    // 0 samples per frame would make the framer loop forever; NaN would never emit a frame.
    if (!Number.isFinite(driver.frameMs) || driver.frameMs < 1 || driver.frameMs > 1000) {
      throw new Error(`frameMs must be between 1 and 1000 (got ${String(driver.frameMs)})`);
    }
    this.#codec = codec;
    this.#driver = driver;
    this.#pool = new SocketPool(codec, pool);
    this.timeline.setMaxListeners(100);
    const adaptive = driver.chunking.adaptive;
    if (adaptive) {
      this.#adaptive = new AdaptiveFirstChunk({ sequentialProvider: !codec.multiplexed, ...(adaptive === true ? {} : adaptive) });
      this.#adaptive.observe(this.timeline);
    }
  }

  /** Running estimates behind `chunking.adaptive` (undefined when it is off). */
  get adaptiveFirstChunk(): AdaptiveFirstChunk | undefined {
    return this.#adaptive;
  }

  override get provider(): string {
    return this.#codec.provider;
  }

  get poolStats(): PoolStats {
    return this.#pool.stats;
  }

  /** Opens the provider socket (and a warm spare) before the first turn needs it. */
  prewarm(): Promise<void> {
    return this.#pool.prewarm();
  }

  stream(options?: { connOptions?: APIConnectOptions }): DriverStream {
    const driver = this.#adaptive
      ? { ...this.#driver, chunking: { ...this.#driver.chunking, firstChunkTargetChars: this.#adaptive.plan().targetChars } }
      : this.#driver;
    return new DriverStream(this, this.#codec, this.#pool, driver, this.timeline, options?.connOptions);
  }

  /**
   * A stream that sends all its text as one request (split only at the provider's length limit):
   * for short fixed phrases, like a cached acknowledgement, that must not be cut at a comma.
   */
  unitStream(connOptions?: APIConnectOptions): DriverStream {
    return this._wholeTextStream(this, connOptions);
  }

  /** Same driver with the chunker overridden, e.g. whole text as one unit for `synthesize()`. */
  protected streamWith(driver: Partial<DriverOptions>, connOptions?: APIConnectOptions): DriverStream {
    return new DriverStream(this, this.#codec, this.#pool, { ...this.#driver, ...driver }, this.timeline, connOptions);
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new WholeTextStream(text, this, connOptions, abortSignal);
  }

  override async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * @internal used by WholeTextStream: one request for the whole text (split only at the
   * provider's length limit). The inner stream owns retries and reports to `reporter` instead of
   * this TTS, so a failure surfaces once, from the outer ChunkedStream.
   */
  _wholeTextStream(reporter: tts.TTS, connOptions?: APIConnectOptions): DriverStream {
    const driver = { ...this.#driver, chunking: { ...this.#driver.chunking, policy: 'unit' as const } };
    return new DriverStream(reporter, this.#codec, this.#pool, driver, this.timeline, connOptions);
  }
}

/** `synthesize()`: the whole text through the same driver and pool, as one unit. */
class WholeTextStream extends tts.ChunkedStream {
  readonly label: string;
  #owner: FirstwordTTS;
  #connOptions: APIConnectOptions;

  constructor(text: string, owner: FirstwordTTS, connOptions?: APIConnectOptions, abortSignal?: AbortSignal) {
    super(text, owner, { ...DEFAULT_API_CONNECT_OPTIONS, ...connOptions, maxRetry: 0 }, abortSignal);
    this.label = `firstword.${owner.provider}.ChunkedStream`;
    this.#owner = owner;
    this.#connOptions = { ...DEFAULT_API_CONNECT_OPTIONS, ...connOptions };
  }

  protected async run(): Promise<void> {
    let failure: Error | undefined;
    const owner = this.#owner;
    // Stands in for the TTS as the inner stream's reporter: keeps its error for us to rethrow.
    const reporter = {
      label: owner.label,
      provider: owner.provider,
      model: owner.model,
      emit: (event: string, payload: { error?: Error }) => {
        if (event === 'error') failure ??= payload.error;
        return true;
      },
    } as unknown as tts.TTS;
    const inner = owner._wholeTextStream(reporter, this.#connOptions);
    const onAbort = () => inner.close();
    this.abortSignal.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    try {
      inner.pushText(this.inputText);
      inner.endInput();
      for await (const ev of inner) {
        if (ev === tts.SynthesizeStream.END_OF_STREAM) {
          finished = true;
          break;
        }
        if (this.abortSignal.aborted) return;
        this.queue.put(ev);
      }
    } finally {
      this.abortSignal.removeEventListener('abort', onAbort);
      inner.close();
    }
    if (!finished && !this.abortSignal.aborted) {
      if (failure instanceof APIError) throw failure; // the real cause; the outer stream does not retry
      throw new APIConnectionError({
        message: `${owner.provider}: synthesis failed${failure ? `: ${failure.message}` : ''}`,
        options: { retryable: false },
      });
    }
  }
}
