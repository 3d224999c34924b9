/**
 * The caller's microphone for a room-less session: rendered utterances played into the session's
 * audio input at real time, in 10 ms frames like a LiveKit track, with silence between them.
 *
 * Every sample has a time: the mic's start plus its position. The time of a piece's last voiced
 * sample is therefore known exactly — the caller's end of speech, where the caller's clock starts —
 * and is announced (with the piece's text) before it is played, so that a scripted STT can answer
 * a fixed time after it.
 */
import { voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';
import { now } from '../latency/clock.js';
import { type RenderedUtterance, type SpokenLanguage, sampleMs } from './utterance.js';

export const MIC_FRAME_MS = 10;

/** A piece of an utterance about to be spoken, on the timeline clock (`performance.now()`). */
export interface ScheduledPiece {
  text: string;
  language: SpokenLanguage;
  firstVoicedAt: number;
  lastVoicedAt: number;
  /** The utterance's last piece: the caller's turn really ends with it. */
  last: boolean;
}

export interface SpokenUtterance {
  startedAt: number;
  pieces: ScheduledPiece[];
  /** When the last sample (trailing silence included) was handed to the session. */
  endedAt: number;
}

export interface MicrophoneEvents {
  piece: [ScheduledPiece];
}

export class ScriptedMicrophone extends voice.AudioInput {
  readonly sampleRate: number;
  readonly script = new EventEmitter<MicrophoneEvents>();
  /** Pieces announced lately, for a listener that starts after they were announced. */
  readonly #recent: ScheduledPiece[] = [];
  readonly #controller: ReadableStreamDefaultController<AudioFrame>;
  readonly #frameSamples: number;
  readonly #startedAt: number;
  /** Samples handed over so far: sample `i` is spoken at `#startedAt + i / rate`. */
  #position = 0;
  #queue: Array<{ utterance: RenderedUtterance; offset: number; done: (spoken: SpokenUtterance) => void; spoken: SpokenUtterance }> = [];
  readonly #timer: NodeJS.Timeout;
  #closed = false;

  constructor(sampleRate = 16_000) {
    super();
    this.sampleRate = sampleRate;
    this.#frameSamples = (sampleRate * MIC_FRAME_MS) / 1000;
    let controller!: ReadableStreamDefaultController<AudioFrame>;
    this.multiStream.addInputStream(new ReadableStream<AudioFrame>({ start: (c) => void (controller = c) }));
    this.#controller = controller;
    this.#startedAt = now();
    // Catches up on each tick, so a late timer delays frames but never loses or bunches time.
    this.#timer = setInterval(() => this.#pump(), MIC_FRAME_MS / 2);
  }

  /** Queues the utterance after anything still playing; resolves once all of it was handed over. */
  speak(utterance: RenderedUtterance): Promise<SpokenUtterance> {
    if (utterance.sampleRate !== this.sampleRate) {
      return Promise.reject(new Error(`the microphone runs at ${this.sampleRate} Hz, the utterance is ${utterance.sampleRate} Hz`));
    }
    if (this.#closed) return Promise.reject(new Error('the microphone is closed'));
    return new Promise((done) => {
      const spoken: SpokenUtterance = { startedAt: Number.NaN, pieces: [], endedAt: Number.NaN };
      this.#queue.push({ utterance, offset: 0, done, spoken });
    });
  }

  /** Pieces announced whose last voiced sample is at or after `since` (timeline clock). */
  piecesSince(since: number): ScheduledPiece[] {
    return this.#recent.filter((piece) => piece.lastVoicedAt >= since);
  }

  override async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearInterval(this.#timer);
      try {
        this.#controller.close();
      } catch {
        /* the session already cancelled its reader */
      }
    }
    await super.close();
  }

  #timeOf(position: number): number {
    return this.#startedAt + (position * 1000) / this.sampleRate;
  }

  #pump(): void {
    const due = Math.floor(((now() - this.#startedAt) * this.sampleRate) / 1000);
    while (!this.#closed && this.#position + this.#frameSamples <= due) this.#pushFrame();
  }

  #pushFrame(): void {
    const frame = new Int16Array(this.#frameSamples);
    let filled = 0;
    while (filled < frame.length && this.#queue.length > 0) {
      const head = this.#queue[0]!;
      if (head.offset === 0) this.#announce(head.utterance, head.spoken, this.#position + filled);
      const take = Math.min(frame.length - filled, head.utterance.samples.length - head.offset);
      frame.set(head.utterance.samples.subarray(head.offset, head.offset + take), filled);
      head.offset += take;
      filled += take;
      if (head.offset >= head.utterance.samples.length) {
        this.#queue.shift();
        head.spoken.endedAt = this.#timeOf(this.#position + filled);
        head.done(head.spoken);
      }
    }
    this.#position += frame.length;
    try {
      this.#controller.enqueue(new AudioFrame(frame, this.sampleRate, 1, frame.length));
    } catch {
      this.#closed = true;
      clearInterval(this.#timer);
    }
  }

  #announce(utterance: RenderedUtterance, spoken: SpokenUtterance, startPosition: number): void {
    const startedAt = this.#timeOf(startPosition);
    spoken.startedAt = startedAt;
    for (const [i, piece] of utterance.pieces.entries()) {
      const scheduled: ScheduledPiece = {
        text: piece.text,
        language: utterance.language,
        firstVoicedAt: startedAt + sampleMs(utterance, piece.firstVoiced),
        lastVoicedAt: startedAt + sampleMs(utterance, piece.lastVoiced + 1),
        last: i === utterance.pieces.length - 1,
      };
      spoken.pieces.push(scheduled);
      this.#recent.push(scheduled);
      if (this.#recent.length > 32) this.#recent.shift();
      this.script.emit('piece', scheduled);
    }
  }
}
