import { type APIConnectOptions, shortuuid, tts } from '@livekit/agents';
import { PacingEstimates } from '../pacing/pacing-estimates.js';
import { observeStream } from './timeline-observer.js';
import { type ProviderCodec, pacingShape } from '../protocol/codec.js';
import type { ConnectionBudget } from '../budget/connection-budget.js';
import type { DriverOptions } from './options.js';
import { type PoolStats, SocketPool } from '../transport/pool.js';
import type { SocketPoolOptions } from '../transport/pool-options.js';
import { DriverStream } from './stream.js';
import { type StreamObserver, StreamTimeline } from './timeline.js';
import { WholeTextStream } from './whole-text-stream.js';

/**
 * What every firstword provider shares: one persistent socket pool, one stream driver, and for
 * each stream a timeline of what happened to it. A provider subclass only supplies its codec and
 * options.
 */
export abstract class FirstwordTTS extends tts.TTS {
  readonly #observers = new Set<StreamObserver>();
  #codec: ProviderCodec;
  #pool: SocketPool;
  #driver: DriverOptions;
  #pacing: DriverOptions['pacing'];

  protected constructor(
    codec: ProviderCodec,
    driver: DriverOptions,
    pool: Partial<SocketPoolOptions>,
    capabilities: { alignedTranscript: boolean },
    budget?: ConnectionBudget,
  ) {
    super(codec.sampleRate, 1, { streaming: true, alignedTranscript: capabilities.alignedTranscript });
    this.#codec = codec;
    this.#driver = driver;
    this.#pool = new SocketPool(codec, pool, budget);
    const { pacing, policy = 'asymmetric' } = driver.chunking;
    if (pacing !== false && policy === 'asymmetric') {
      const estimates = new PacingEstimates(pacing);
      this.onStream((_, timeline) => observeStream(estimates, timeline));
      this.#pacing = { shape: pacingShape(codec), estimates };
    }
  }

  /** The pacer's running estimates (undefined when `chunking.pacing` is off or the policy is not asymmetric). */
  get pacingEstimates(): PacingEstimates | undefined {
    return this.#pacing?.estimates;
  }

  override get provider(): string {
    return this.#codec.provider;
  }

  get poolStats(): PoolStats {
    return this.#pool.stats;
  }

  /** Opens the provider socket before the first turn needs it (if the connection budget has room). */
  prewarm(): Promise<void> {
    return this.#pool.prewarm();
  }

  /**
   * Calls `observer` with each stream this TTS makes from now on and that stream's own timeline
   * (chunk / send / first byte / first frame / track / interruption / retry events, for budgets,
   * heard text and charts), before the stream's first event. Returns the way to stop.
   */
  onStream(observer: StreamObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** A new stream's timeline. */
  protected newTimeline(): StreamTimeline {
    return new StreamTimeline(shortuuid('fw_'));
  }

  /** Tells every observer of `stream` and its timeline; returns the stream. */
  protected announce<S extends tts.SynthesizeStream | tts.ChunkedStream>(stream: S, timeline: StreamTimeline): S {
    for (const observer of this.#observers) observer(stream, timeline);
    return stream;
  }

  stream(options?: { connOptions?: APIConnectOptions }): DriverStream {
    const driver = this.#pacing ? { ...this.#driver, pacing: this.#pacing } : this.#driver;
    const timeline = this.newTimeline();
    return this.announce(new DriverStream(this, this.#codec, this.#pool, driver, timeline, options?.connOptions), timeline);
  }

  /**
   * A stream that sends all its text as one request (split only at the provider's length limit):
   * for short fixed phrases, like a cached acknowledgement, that must not be cut at a comma.
   */
  unitStream(connOptions?: APIConnectOptions): DriverStream {
    const driver = { ...this.#driver, chunking: { ...this.#driver.chunking, policy: 'unit' as const } };
    const timeline = this.newTimeline();
    return this.announce(new DriverStream(this, this.#codec, this.#pool, driver, timeline, connOptions), timeline);
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    const timeline = this.newTimeline();
    const parts = { codec: this.#codec, pool: this.#pool, opts: this.#driver, timeline };
    return this.announce(new WholeTextStream(text, this, parts, connOptions, abortSignal), timeline);
  }

  override async close(): Promise<void> {
    await this.#pool.close();
  }
}
