/**
 * Collects, per demo turn, everything observable on one clock (`performance.now()`): the LLM's
 * tokens, the TTS driver's timeline (chunk released, request sent, first byte, first frame,
 * request played) and what the recording output played.
 */
import type { EventEmitter } from 'node:events';
import type { RecordedSegment } from '../audio/recording-output.js';
import type { TimelineEvents } from '../tts/timeline.js';
import type { TokenTimelineEvents } from './timed-llm.js';

type Payload<K extends keyof TimelineEvents> = TimelineEvents[K][0];

export interface RawTurn {
  name: string;
  prompt: string;
  injectedAt: number;
  interruptRequestedAt?: number;
  endedAt: number;
  llm: {
    requestAt?: number;
    tokens: { at: number; text: string }[];
    doneAt?: number;
    cancelled: boolean;
  };
  /** Undefined when the TTS exposes no timeline: those stamps cannot be observed. */
  tts?: {
    chunks: Payload<'chunk'>[];
    sent: Payload<'sent'>[];
    firstBytes: Payload<'first_byte'>[];
    firstFrames: Payload<'first_frame'>[];
    tracksDone: Payload<'track_done'>[];
    interruptions: Payload<'interrupted'>[];
  };
  segments: RecordedSegment[];
}

export class TurnRecorder {
  readonly #tts?: EventEmitter<TimelineEvents>;
  readonly #llm: EventEmitter<TokenTimelineEvents>;
  readonly #detach: Array<() => void> = [];
  #current?: RawTurn;

  constructor(sources: { tts?: EventEmitter<TimelineEvents>; llm: EventEmitter<TokenTimelineEvents> }) {
    this.#tts = sources.tts;
    this.#llm = sources.llm;
    this.#on(this.#llm, 'request', ({ at }) => this.#llmOf((l) => (l.requestAt ??= at)));
    this.#on(this.#llm, 'token', (token) => this.#llmOf((l) => l.tokens.push(token)));
    this.#on(this.#llm, 'done', ({ at, cancelled }) =>
      this.#llmOf((l) => {
        l.doneAt ??= at;
        l.cancelled ||= cancelled;
      }),
    );
    if (this.#tts) {
      this.#on(this.#tts, 'chunk', (ev) => this.#current?.tts?.chunks.push(ev));
      this.#on(this.#tts, 'sent', (ev) => this.#current?.tts?.sent.push(ev));
      this.#on(this.#tts, 'first_byte', (ev) => this.#current?.tts?.firstBytes.push(ev));
      this.#on(this.#tts, 'first_frame', (ev) => this.#current?.tts?.firstFrames.push(ev));
      this.#on(this.#tts, 'track_done', (ev) => this.#current?.tts?.tracksDone.push(ev));
      this.#on(this.#tts, 'interrupted', (ev) => this.#current?.tts?.interruptions.push(ev));
    }
  }

  get observesTts(): boolean {
    return this.#tts !== undefined;
  }

  /** Starts a turn; its user input counts as injected now. */
  begin(name: string, prompt: string): void {
    this.#current = {
      name,
      prompt,
      injectedAt: performance.now(),
      endedAt: Number.NaN,
      llm: { tokens: [], cancelled: false },
      tts: this.#tts
        ? { chunks: [], sent: [], firstBytes: [], firstFrames: [], tracksDone: [], interruptions: [] }
        : undefined,
      segments: [],
    };
  }

  markInterruptRequested(): void {
    if (this.#current) this.#current.interruptRequestedAt = performance.now();
  }

  /** Ends the turn with the output segments it played. */
  finish(segments: readonly RecordedSegment[]): RawTurn {
    const turn = this.#current;
    if (!turn) throw new Error('TurnRecorder.finish() without begin()');
    this.#current = undefined;
    turn.endedAt = performance.now();
    turn.segments = [...segments];
    return turn;
  }

  dispose(): void {
    for (const detach of this.#detach.splice(0)) detach();
  }

  #llmOf(update: (llm: RawTurn['llm']) => void): void {
    if (this.#current) update(this.#current.llm);
  }

  #on<E extends Record<keyof E, unknown[]>, K extends keyof E & string>(
    emitter: EventEmitter<E>,
    event: K,
    listener: (payload: E[K] extends [infer P] ? P : never) => void,
  ): void {
    const handler = listener as unknown as (...args: unknown[]) => void;
    (emitter as unknown as EventEmitter).on(event, handler);
    this.#detach.push(() => (emitter as unknown as EventEmitter).off(event, handler));
  }
}
