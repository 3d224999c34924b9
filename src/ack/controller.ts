/**
 * Plays a cached acknowledgement when a user turn ends.
 *
 * Ordering without overlap: AgentSession plays speech handles one at a time, in priority then
 * scheduling order, and a reply is scheduled right after the agent's `onUserTurnCompleted`
 * returns — after the previous speech and anything queued were interrupted. So the ack is
 * `say()`-ed from inside that hook (the `user_turn_completed` turn signal): it is queued before
 * the reply, is never interrupted by the turn's own bookkeeping, and the reply's audio (whose
 * LLM and TTS run meanwhile) is forwarded the moment the ack's playout ends.
 *
 * `slow` mode cannot wait to decide before queueing (the reply would be queued first), so it
 * queues the ack with audio still pending: the frames are released if the LLM's first token has
 * not come within `slowMs`, and the stream closes empty — nothing played, nothing transcribed —
 * if it has. The reply then waits on an empty handle for at most a scheduling step.
 */
import { log, voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';
import type { AckMode } from '../config/index.js';
import {
  type AckReason,
  type AckSignal,
  type LlmGeneration,
  type TurnSignals,
  type UserTurnCompleted,
  observeAgentTurns,
} from '../latency/turn-signals.js';
import { now } from '../latency/clock.js';
import { type AckLibrary, type CachedAck, ackFrames } from './library.js';
import { detectAckLanguage } from './phrases.js';

export interface AckControllerOptions {
  /** The agent the session runs: the ack is queued from its turn hook. */
  agent: voice.Agent;
  library: AckLibrary;
  /** `off` | `always` | `slow` (only when the LLM's first token is late). @defaultValue 'off' */
  mode: AckMode;
  /** `slow` mode: how long the LLM may stay silent before the ack plays. @defaultValue 600 */
  slowMs: number;
}

const DEFAULT_ACK_CONTROLLER_OPTIONS: Omit<AckControllerOptions, 'agent' | 'library'> = {
  mode: 'off',
  slowMs: 600,
};

export interface AckDecision extends AckSignal {
  /** The ack's speech handle (also for skipped acks in `slow` mode, which hold an empty one). */
  speechId?: string;
}

export interface AckControllerEvents {
  decision: [AckDecision];
}

/** A `say()` whose text and audio are released (or closed empty) later. */
class PendingSpeech {
  readonly text: ReadableStream<string>;
  readonly audio: ReadableStream<AudioFrame>;
  #textOut!: ReadableStreamDefaultController<string>;
  #audioOut!: ReadableStreamDefaultController<AudioFrame>;
  #settled = false;

  constructor() {
    this.text = new ReadableStream<string>({ start: (c) => void (this.#textOut = c) });
    this.audio = new ReadableStream<AudioFrame>({ start: (c) => void (this.#audioOut = c) });
  }

  get settled(): boolean {
    return this.#settled;
  }

  release(ack: CachedAck): void {
    if (this.#settled) return;
    this.#textOut.enqueue(ack.text);
    for (const frame of ackFrames(ack)) this.#audioOut.enqueue(frame);
    this.#close();
  }

  skip(): void {
    if (!this.#settled) this.#close();
  }

  #close(): void {
    this.#settled = true;
    // The session may already have cancelled a stream of an interrupted handle.
    for (const out of [this.#textOut, this.#audioOut]) {
      try {
        out.close();
      } catch {
        /* already closed or errored */
      }
    }
  }
}

export class AckController extends EventEmitter<AckControllerEvents> {
  readonly #session: voice.AgentSession;
  readonly #signals: TurnSignals;
  readonly #opts: AckControllerOptions;
  readonly #pending = new Set<() => void>();
  #lastId: string | undefined;
  #closed = false;
  readonly #onTurn = (ev: UserTurnCompleted): void => this.#acknowledge(ev);
  readonly #onClose = (): void => this.close();

  /** @internal use {@link attachAcknowledgement} */
  constructor(session: voice.AgentSession, opts: AckControllerOptions) {
    super();
    this.#session = session;
    this.#opts = opts;
    this.#signals = observeAgentTurns(opts.agent);
    this.#signals.on('user_turn_completed', this.#onTurn);
    session.on(voice.AgentSessionEventTypes.Close, this.#onClose);
  }

  get mode(): AckMode {
    return this.#opts.mode;
  }

  /** Switches mode for the next turns (e.g. from a live config change). */
  set mode(mode: AckMode) {
    this.#opts.mode = mode;
  }

  /** Id of the last phrase played: the next turn will not repeat it. */
  get lastPhraseId(): string | undefined {
    return this.#lastId;
  }

  /** Stops acknowledging; a pending `slow` ack closes empty. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signals.off('user_turn_completed', this.#onTurn);
    this.#session.off(voice.AgentSessionEventTypes.Close, this.#onClose);
    for (const cancel of [...this.#pending]) cancel();
  }

  #acknowledge({ message }: UserTurnCompleted): void {
    const { mode, slowMs, library } = this.#opts;
    if (this.#closed || mode === 'off') return;
    const language = detectAckLanguage(message.textContent ?? '');
    const ack = library.pick(language, this.#lastId);
    const messageId = message.id;
    if (!ack) return this.#decide({ messageId, at: now(), outcome: 'skipped', reason: 'no_phrase', language });

    if (mode === 'always') {
      const speech = new PendingSpeech();
      const handle = this.#say(speech);
      if (!handle) return;
      speech.release(ack);
      this.#played(ack, messageId, handle.id, 'always');
      return;
    }

    const draft = this.#signals.generationFor(message);
    if (draft?.firstTokenAt !== undefined) {
      // A preemptive draft already answered: the reply is on its way, no handle needed.
      return this.#decide({ messageId, at: now(), outcome: 'skipped', reason: 'llm_ready', language });
    }
    this.#holdUntilSlow(ack, message, slowMs);
  }

  #holdUntilSlow(ack: CachedAck, message: UserTurnCompleted['message'], slowMs: number): void {
    const speech = new PendingSpeech();
    const handle = this.#say(speech);
    if (!handle) return;
    const settle = (outcome: 'played' | 'skipped', reason: AckReason) => {
      if (speech.settled) return;
      clearTimeout(timer);
      this.#signals.off('llm_first_token', onFirstToken);
      this.#pending.delete(cancel);
      if (outcome === 'played') {
        speech.release(ack);
        this.#played(ack, message.id, handle.id, reason);
      } else {
        speech.skip();
        this.#decide({ messageId: message.id, at: now(), outcome, reason, language: ack.language, speechId: handle.id });
      }
    };
    const onFirstToken = (generation: LlmGeneration) => {
      if (this.#signals.belongsTo(generation, message)) settle('skipped', 'llm_ready');
    };
    const cancel = () => settle('skipped', 'closed');
    const timer = setTimeout(() => settle('played', 'slow_llm'), slowMs);
    this.#signals.on('llm_first_token', onFirstToken);
    this.#pending.add(cancel);
    handle.addDoneCallback(() => settle('skipped', 'interrupted'));
  }

  #say(speech: PendingSpeech): voice.SpeechHandle | undefined {
    try {
      return this.#session.say(speech.text, { audio: speech.audio, allowInterruptions: true, addToChatCtx: false });
    } catch (error) {
      // A closing session refuses new speech; the turn goes on without an ack.
      log().debug({ error: (error as Error).message }, 'acknowledgement not scheduled');
      speech.skip();
      return undefined;
    }
  }

  #played(ack: CachedAck, messageId: string, speechId: string, reason: AckReason): void {
    this.#lastId = ack.id;
    this.#decide({
      messageId,
      at: now(),
      outcome: 'played',
      reason,
      phraseId: ack.id,
      language: ack.language,
      durationMs: ack.durationMs,
      speechId,
    });
  }

  #decide(decision: AckDecision): void {
    const { speechId: _speechId, ...signal } = decision;
    this.#signals.emit('ack', signal);
    this.emit('decision', decision);
  }
}

/**
 * Acknowledges every user turn of `session` per `mode`. Attach before `session.start()` (the
 * agent's turn hook is wrapped then); the controller closes itself with the session.
 */
export function attachAcknowledgement(
  session: voice.AgentSession,
  options: Pick<AckControllerOptions, 'agent' | 'library'> & Partial<Omit<AckControllerOptions, 'agent' | 'library'>>,
): AckController {
  return new AckController(session, { ...DEFAULT_ACK_CONTROLLER_OPTIONS, ...options });
}
