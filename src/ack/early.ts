/**
 * The early acknowledgement: a cached "네." / "Okay." the moment the caller's turn is predicted to
 * be over — at the VAD's end of speech, when the words so far read as finished — rather than
 * after the endpointing delay, the LLM and the TTS.
 *
 * It plays through an {@link AckOutput}, outside the speech queue (see there why), and:
 * - is withdrawn without a sound if the caller goes on before it plays, and stopped at once if
 *   they go on while it plays (a false end, counted);
 * - never plays when the session's reply audio is already on its way;
 * - plays at most once per caller turn.
 * When the turn is committed, what it did is published as the turn's ack signal.
 */
import { voice } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import type { AckPlayback, AckOutput } from '../audio/ack-output.js';
import { type AckReason, type TurnSignals, type UserTurnCompleted, observeAgentTurns } from '../latency/turn-signals.js';
import { now } from '../latency/clock.js';
import type { AckLibrary, CachedAck } from './library.js';
import { type AckLanguage, detectAckLanguage } from './phrases.js';

/** The turn detector's judgement: probability in [0, 1] that `text` is the caller's whole turn. */
export type TurnCompletePredictor = (text: string, language: AckLanguage) => number;

export interface EarlyAckOptions {
  agent: voice.Agent;
  library: AckLibrary;
  output: AckOutput;
  predict: TurnCompletePredictor;
  /** Probability from which the turn counts as over. @defaultValue 0.5 */
  threshold: number;
}

export interface EarlyAckAttempt {
  /** The caller's end of speech that triggered it (VAD), timeline clock. */
  endOfSpeechAt: number;
  decidedAt: number;
  outcome: 'played' | 'withdrawn' | 'cut' | 'skipped';
  reason: AckReason;
  phraseId?: string;
  playback?: AckPlayback;
}

export interface EarlyAckEvents {
  attempt: [EarlyAckAttempt];
}

interface CallerTurn {
  finals: string[];
  interim: string;
  language?: string;
  /** The ack heard in this turn (not cut): at most one. */
  heard?: { attempt: EarlyAckAttempt; ack: CachedAck };
  current?: { attempt: EarlyAckAttempt; ack: CachedAck };
  lastEndOfSpeechAt?: number;
  lastSkip?: EarlyAckAttempt;
}

export class EarlyAck extends EventEmitter<EarlyAckEvents> {
  readonly #session: voice.AgentSession;
  readonly #signals: TurnSignals;
  readonly #opts: EarlyAckOptions;
  readonly #detach: Array<() => void> = [];
  #turn: CallerTurn = { finals: [], interim: '' };
  #lastPhraseId: string | undefined;
  #userSpeaking = false;

  /** @internal use {@link attachEarlyAck} */
  constructor(session: voice.AgentSession, opts: EarlyAckOptions) {
    super();
    this.#session = session;
    this.#opts = opts;
    this.#signals = observeAgentTurns(opts.agent);
    // At the output's rate before any turn needs one, not at the moment it should play.
    opts.output.prepare(opts.library.all().map((ack) => ack.frames));
    const E = voice.AgentSessionEventTypes;
    this.#listen(session, E.UserInputTranscribed, (ev: voice.UserInputTranscribedEvent) => this.#onTranscript(ev));
    this.#listen(session, E.UserStateChanged, (ev: voice.UserStateChangedEvent) => this.#onUserState(ev));
    this.#listen(session, E.Close, () => this.close());
    this.#listen(this.#signals, 'user_turn_completed', (ev: UserTurnCompleted) => this.#onTurnCompleted(ev));
  }

  close(): void {
    for (const detach of this.#detach.splice(0)) detach();
    this.#opts.output.stopAck();
  }

  #listen(emitter: object, event: string, listener: (...args: any[]) => void): void {
    // Typed emitters do not accept a computed event name; the listeners above are typed per event.
    const target = emitter as EventEmitter;
    target.on(event, listener);
    this.#detach.push(() => target.off(event, listener));
  }

  #transcript(): string {
    return [...this.#turn.finals, this.#turn.interim].join(' ').trim();
  }

  #onTranscript(ev: voice.UserInputTranscribedEvent): void {
    if (ev.language) this.#turn.language = ev.language;
    if (ev.isFinal) {
      this.#turn.finals.push(ev.transcript);
      this.#turn.interim = '';
      // A final that lands after the VAD's end of speech is the first moment the words are known.
      if (!this.#userSpeaking && this.#turn.lastEndOfSpeechAt !== undefined) this.#consider(this.#turn.lastEndOfSpeechAt);
    } else {
      this.#turn.interim = ev.transcript;
    }
  }

  #onUserState(ev: voice.UserStateChangedEvent): void {
    if (ev.newState === 'speaking') {
      this.#userSpeaking = true;
      this.#callerWentOn();
      return;
    }
    if (ev.oldState === 'speaking') {
      this.#userSpeaking = false;
      const at = now();
      this.#turn.lastEndOfSpeechAt = at;
      this.#consider(at);
    }
  }

  #consider(endOfSpeechAt: number): void {
    const turn = this.#turn;
    if (turn.heard || turn.current) return;
    const text = this.#transcript();
    if (!text) return;
    const language = detectAckLanguage(text);
    const skip = (reason: AckReason) => {
      const attempt: EarlyAckAttempt = { endOfSpeechAt, decidedAt: now(), outcome: 'skipped', reason };
      turn.lastSkip = attempt;
      this.emit('attempt', attempt);
    };
    if (this.#opts.predict(text, language) < this.#opts.threshold) return skip('not_over');
    if (this.#session.agentState === 'speaking' || this.#opts.output.sessionAudioPending) return skip('reply_ready');
    const ack = this.#opts.library.pick(language, this.#lastPhraseId);
    if (!ack) return skip('no_phrase');
    const playback = this.#opts.output.play(ack.frames);
    if (!playback) return skip('reply_ready');
    const attempt: EarlyAckAttempt = { endOfSpeechAt, decidedAt: now(), outcome: 'played', reason: 'early', phraseId: ack.id, playback };
    turn.current = { attempt, ack };
    this.#lastPhraseId = ack.id;
    const onFinished = (finished: AckPlayback) => {
      if (finished !== playback) return;
      this.#opts.output.ackEvents.off('ack_finished', onFinished);
      if (turn.current?.attempt !== attempt) return;
      turn.current = undefined;
      if (!finished.stopped) turn.heard = { attempt, ack };
    };
    this.#opts.output.ackEvents.on('ack_finished', onFinished);
  }

  /** The caller spoke again: an ack not yet heard is withdrawn, one playing is stopped (a false end). */
  #callerWentOn(): void {
    const current = this.#turn.current;
    if (!current) return;
    this.#turn.current = undefined;
    const { attempt } = current;
    attempt.outcome = attempt.playback?.startedAt === undefined ? 'withdrawn' : 'cut';
    attempt.reason = 'user_resumed';
    this.#opts.output.stopAck();
    this.emit('attempt', attempt);
  }

  #onTurnCompleted({ message }: UserTurnCompleted): void {
    const turn = this.#turn;
    this.#turn = { finals: [], interim: '' };
    const language = detectAckLanguage(message.textContent ?? '');
    // An ack heard at an earlier pause was a false end, not this turn's first sound.
    const candidate = turn.current ?? turn.heard;
    const played = candidate?.attempt.endOfSpeechAt === turn.lastEndOfSpeechAt ? candidate : undefined;
    if (played) {
      this.emit('attempt', played.attempt);
      this.#signals.emit('ack', {
        messageId: message.id,
        at: played.attempt.decidedAt,
        playedAt: played.attempt.playback?.startedAt,
        outcome: 'played',
        reason: 'early',
        phraseId: played.ack.id,
        language: played.ack.language,
        durationMs: played.ack.durationMs,
      });
      return;
    }
    const reason = candidate ? 'user_resumed' : (turn.lastSkip?.reason ?? 'not_over');
    this.#signals.emit('ack', { messageId: message.id, at: now(), outcome: 'skipped', reason, language });
  }
}

/** Early acknowledgements for `session`, through `options.output` (install it as the session's audio output). */
export function attachEarlyAck(
  session: voice.AgentSession,
  options: Omit<EarlyAckOptions, 'threshold'> & Partial<Pick<EarlyAckOptions, 'threshold'>>,
): EarlyAck {
  return new EarlyAck(session, { threshold: 0.5, ...options });
}
