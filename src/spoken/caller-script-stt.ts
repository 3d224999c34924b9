/**
 * An STT that knows what the caller says: it listens to the scripted microphone's announcements
 * and gives each piece's final transcript a fixed time after the piece's last voiced sample — how
 * a streaming STT finalises, independent of the VAD. Offline runs (demo, bench:turn) use it, so
 * what they measure is turn-taking, not recognition; their reports say "scripted STT".
 */
import { asLanguageCode, stt } from '@livekit/agents';
import type { APIConnectOptions } from '@livekit/agents';
import type { ScheduledPiece, ScriptedMicrophone } from './microphone.js';
import { now } from '../latency/clock.js';

export interface CallerScriptSttOptions {
  /** Last voiced sample → final transcript, ms. @defaultValue 150 */
  finalAfterMs: number;
  /** Last voiced sample → interim transcript, ms (a streaming STT's partial). @defaultValue 60 */
  interimAfterMs: number;
}

const DEFAULT_CALLER_SCRIPT_STT_OPTIONS: CallerScriptSttOptions = { finalAfterMs: 150, interimAfterMs: 60 };

export class CallerScriptSTT extends stt.STT {
  label = 'scripted-stt';
  readonly options: CallerScriptSttOptions;
  readonly #mic: ScriptedMicrophone;

  constructor(mic: ScriptedMicrophone, options: Partial<CallerScriptSttOptions> = {}) {
    super({ streaming: true, interimResults: true });
    this.#mic = mic;
    this.options = { ...DEFAULT_CALLER_SCRIPT_STT_OPTIONS, ...options };
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('the scripted STT only streams');
  }

  override stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new ScriptedStream(this, this.#mic, options?.connOptions);
  }
}

class ScriptedStream extends stt.SpeechStream {
  label = 'scripted-stt.stream';
  readonly #stt: CallerScriptSTT;
  readonly #mic: ScriptedMicrophone;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(owner: CallerScriptSTT, mic: ScriptedMicrophone, connOptions?: APIConnectOptions) {
    super(owner, undefined, connOptions);
    this.#stt = owner;
    this.#mic = mic;
  }

  protected async run(): Promise<void> {
    const onPiece = (piece: ScheduledPiece) => this.#schedule(piece);
    this.#mic.script.on('piece', onPiece);
    // The session may open this stream after the caller began: pieces still to be finalised count.
    for (const piece of this.#mic.piecesSince(now() - this.#stt.options.finalAfterMs)) this.#schedule(piece);
    try {
      // The audio is not recognised, only drained: the script already holds the words.
      for await (const _frame of this.input) {
        if (this.closed) break;
      }
    } finally {
      this.#mic.script.off('piece', onPiece);
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
    }
  }

  #schedule(piece: ScheduledPiece): void {
    const { interimAfterMs, finalAfterMs } = this.#stt.options;
    this.#at(piece.lastVoicedAt + interimAfterMs, () => this.#emit(stt.SpeechEventType.INTERIM_TRANSCRIPT, piece));
    this.#at(piece.lastVoicedAt + finalAfterMs, () => this.#emit(stt.SpeechEventType.FINAL_TRANSCRIPT, piece));
  }

  #at(time: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, Math.max(0, time - now()));
    this.#timers.add(timer);
  }

  #emit(type: stt.SpeechEventType, piece: ScheduledPiece): void {
    if (this.closed) return;
    this.queue.put({
      type,
      alternatives: [
        {
          text: piece.text,
          language: asLanguageCode(piece.language),
          startTime: 0,
          endTime: 0,
          confidence: 1,
        },
      ],
    });
  }
}
