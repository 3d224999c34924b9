import { type APIConnectOptions, log, tts } from '@livekit/agents';
import type { ProviderCodec } from '../protocol/codec.js';
import type { DriverOptions } from './options.js';
import type { SocketPool } from '../transport/pool.js';
import { Synthesis } from './synthesis.js';
import type { StreamTimeline } from './timeline.js';

/**
 * The framework's streaming side of a firstword TTS: LLM deltas and flushes from `this.input` go
 * into one Synthesis; each of the base class's attempts (it retries retryable APIErrors) is one
 * `Synthesis.run()`, which resumes where the failed one left off.
 */
export class DriverStream extends tts.SynthesizeStream {
  readonly label: string;
  /** This stream's events: chunks, sends, first byte and frame, tracks done, retries, interruption. */
  readonly timeline: StreamTimeline;
  readonly #synthesis: Synthesis;
  #pump: Promise<void> | undefined;

  constructor(
    owner: tts.TTS,
    codec: ProviderCodec,
    pool: SocketPool,
    opts: DriverOptions,
    timeline: StreamTimeline,
    connOptions?: APIConnectOptions,
  ) {
    super(owner, connOptions);
    this.timeline = timeline;
    this.label = `firstword.${codec.provider}.SynthesizeStream`;
    this.#synthesis = new Synthesis({
      codec,
      pool,
      opts,
      timeline,
      signal: this.abortSignal,
      sink: {
        put: (audio) => {
          if (!this.queue.closed) this.queue.put(audio);
        },
        started: () => this.markStarted(),
        finished: () => {
          if (!this.queue.closed) this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
        },
      },
    });
  }

  /** The id of this stream (`streamId` of every event on its timeline). */
  get id(): string {
    return this.#synthesis.id;
  }

  protected async run(): Promise<void> {
    this.#pump ??= this.#pumpInput();
    await this.#synthesis.run();
  }

  async #pumpInput(): Promise<void> {
    try {
      for await (const item of this.input) {
        if (this.abortSignal.aborted) break;
        if (item === tts.SynthesizeStream.FLUSH_SENTINEL) this.#synthesis.flush();
        else this.#synthesis.push(item);
      }
    } catch (err) {
      log().warn({ err: String(err) }, 'TTS input ended with an error');
    } finally {
      this.#synthesis.end();
    }
  }
}
