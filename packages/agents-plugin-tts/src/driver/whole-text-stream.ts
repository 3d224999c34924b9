import { type APIConnectOptions, tts } from '@livekit/agents';
import type { ProviderCodec } from '../protocol/codec.js';
import type { DriverOptions } from './options.js';
import type { SocketPool } from '../transport/pool.js';
import { Synthesis } from './synthesis.js';
import type { StreamTimeline } from './timeline.js';

/**
 * `synthesize()`: the whole text as one unit through the same Synthesis and socket pool (split
 * only at the provider's length limit). The base class's retries resume the same Synthesis, so a
 * retry after a dropped socket skips the audio already delivered; a failure is reported once.
 */
export class WholeTextStream extends tts.ChunkedStream {
  readonly label: string;
  /** This stream's events. */
  readonly timeline: StreamTimeline;
  readonly #synthesis: Synthesis;
  #started = false;

  constructor(
    text: string,
    owner: tts.TTS,
    parts: { codec: ProviderCodec; pool: SocketPool; opts: DriverOptions; timeline: StreamTimeline },
    connOptions?: APIConnectOptions,
    abortSignal?: AbortSignal,
  ) {
    super(text, owner, connOptions, abortSignal);
    this.label = `firstword.${parts.codec.provider}.ChunkedStream`;
    this.timeline = parts.timeline;
    this.#synthesis = new Synthesis({
      ...parts,
      opts: { ...parts.opts, chunking: { ...parts.opts.chunking, policy: 'unit' } },
      signal: this.abortSignal,
      // Each attempt has a queue of its own: deliver to the current one.
      sink: {
        put: (audio) => {
          if (!this.queue.closed) this.queue.put(audio);
        },
        started: () => {},
        finished: () => {},
      },
    });
  }

  protected async run(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      this.#synthesis.push(this.inputText);
      this.#synthesis.end();
    }
    await this.#synthesis.run();
  }
}
