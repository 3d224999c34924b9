import { type APIConnectOptions, tts } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { PacingEstimates } from '../pacing/pacing-estimates.js';
import { observeTimeline } from './timeline-observer.js';
import { type ProviderCodec, pacingShape } from '../protocol/codec.js';
import type { ConnectionBudget } from '../budget/connection-budget.js';
import type { DriverOptions } from './options.js';
import { type PoolStats, SocketPool } from '../transport/pool.js';
import type { SocketPoolOptions } from '../transport/pool-options.js';
import { DriverStream } from './stream.js';
import type { TimelineEvents } from './timeline.js';
import { WholeTextStream } from './whole-text-stream.js';

/**
 * What every firstword provider shares: one persistent socket pool, one stream driver, one
 * timeline of what happened. A provider subclass only supplies its codec and options.
 */
export abstract class FirstwordTTS extends tts.TTS {
  /** Chunk / send / first byte / first frame / interruption events, for budgets and charts. */
  readonly timeline = new EventEmitter<TimelineEvents>();
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
    this.timeline.setMaxListeners(100);
    const { pacing, policy = 'asymmetric' } = driver.chunking;
    if (pacing !== false && policy === 'asymmetric') {
      const estimates = new PacingEstimates(pacing);
      observeTimeline(estimates, this.timeline);
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

  stream(options?: { connOptions?: APIConnectOptions }): DriverStream {
    const driver = this.#pacing ? { ...this.#driver, pacing: this.#pacing } : this.#driver;
    return new DriverStream(this, this.#codec, this.#pool, driver, this.timeline, options?.connOptions);
  }

  /**
   * A stream that sends all its text as one request (split only at the provider's length limit):
   * for short fixed phrases, like a cached acknowledgement, that must not be cut at a comma.
   */
  unitStream(connOptions?: APIConnectOptions): DriverStream {
    const driver = { ...this.#driver, chunking: { ...this.#driver.chunking, policy: 'unit' as const } };
    return new DriverStream(this, this.#codec, this.#pool, driver, this.timeline, connOptions);
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    const parts = { codec: this.#codec, pool: this.#pool, opts: this.#driver, timeline: this.timeline };
    return new WholeTextStream(text, this, parts, connOptions, abortSignal);
  }

  override async close(): Promise<void> {
    await this.#pool.close();
  }
}
