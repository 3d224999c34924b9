/**
 * Which TTS stream is a turn's reply. The session synthesizes preemptive drafts before their turn
 * is decided and may drop them, so every stream's first stamps are kept from its first chunk on,
 * and a turn claims one once it knows its LLM generation: the first unclaimed stream whose first
 * chunk came after that generation's first token (or its request, before there is one) — whether
 * that was before or after the turn was decided.
 */
import type { StreamObserver, StreamTimeline } from '@firstword/agents-plugin-tts';
import type { TurnStamps } from './stamps.js';
import type { LlmGeneration } from './turn-signals.js';

/** What a turn holds of its reply stream; {@link ReplyStreams.claim} fills it in. */
export interface ClaimingTurn {
  generation?: LlmGeneration;
  streamId?: string;
  stamps: TurnStamps;
}

type StreamStamps = { ttsFirstChunk: number } & Pick<TurnStamps, 'ttsFirstSend' | 'ttsFirstByte' | 'ttsFirstFrame'>;

/** A TTS stream's first stamps, and the turn that claimed it as its reply. */
interface KeptStream {
  streamId: string;
  stamps: StreamStamps;
  turn?: ClaimingTurn;
}

/** Streams kept for a turn to claim: a turn has its reply and at most a few discarded drafts. */
const MAX_KEPT_STREAMS = 8;

/** A TTS that hands over each stream's timeline (ours, `FirstwordTTS`). */
export interface StreamTimelines {
  onStream(observer: StreamObserver): () => void;
}

export function hasStreamTimelines(value: unknown): value is StreamTimelines {
  return typeof value === 'object' && value !== null && 'onStream' in value && typeof value.onStream === 'function';
}

export class ReplyStreams {
  readonly #streams: KeptStream[] = [];
  /** The turn open now: a stream's later stamps reach it only while it is. */
  readonly #openTurn: () => ClaimingTurn | undefined;

  constructor(openTurn: () => ClaimingTurn | undefined) {
    this.#openTurn = openTurn;
  }

  /** Keeps a new stream's first stamps, and offers it to the open turn. */
  watch(timeline: StreamTimeline): void {
    let kept: KeptStream | undefined;
    timeline.on('chunk', (ev) => {
      if (kept || ev.index !== 0) return;
      kept = { streamId: timeline.streamId, stamps: { ttsFirstChunk: ev.at } };
      this.#streams.push(kept);
      if (this.#streams.length > MAX_KEPT_STREAMS) this.#streams.shift();
      const turn = this.#openTurn();
      if (turn) this.claim(turn);
    });
    const stamp = (name: 'ttsFirstSend' | 'ttsFirstByte' | 'ttsFirstFrame', at: number) => {
      if (!kept || kept.stamps[name] !== undefined) return;
      kept.stamps[name] = at;
      if (kept.turn && this.#openTurn() === kept.turn) kept.turn.stamps[name] ??= at;
    };
    timeline.on('sent', (e) => stamp('ttsFirstSend', e.at));
    timeline.on('first_byte', (e) => stamp('ttsFirstByte', e.at));
    timeline.on('first_frame', (e) => stamp('ttsFirstFrame', e.at));
  }

  /** Gives `turn` its reply stream, when it knows its generation and the stream has begun. */
  claim(turn: ClaimingTurn): void {
    if (!turn.generation || turn.streamId !== undefined) return;
    const from = turn.generation.firstTokenAt ?? turn.generation.requestedAt;
    const kept = this.#streams.find((s) => s.turn === undefined && s.stamps.ttsFirstChunk >= from);
    if (!kept) return;
    kept.turn = turn;
    turn.streamId = kept.streamId;
    Object.assign(turn.stamps, kept.stamps);
  }

  clear(): void {
    this.#streams.length = 0;
  }
}
