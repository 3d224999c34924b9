/**
 * The early acknowledgement: a cached "네." / "Okay." the moment the caller's turn is predicted to
 * be over — at the VAD's end of speech, when the words so far read as finished — rather than
 * after the endpointing delay, the LLM and the TTS.
 *
 * It never waits for the speech-to-text's final: the words heard so far (finals and the live
 * model's interim words) are judged at the end of speech, and judged again each time a word lands
 * after it ("I need a" → "I need a table"). A live model's words trail their audio, so until they
 * are due to cover the speech (`wordsDueMs` after the end of speech) words that read finished may
 * still lack the last ones ("…kids life" of "…kids life and"): they can withhold the ack but not
 * play it, and are judged again once due. When no word at all has come `silenceBoundMs` after
 * the end of speech, the silence alone decides. The clip is chosen by the wait it must cover
 * (the reply's audio is expected `replyWait` after the end of speech, learnt per session): the
 * longest that ends before the reply is ready, none when the reply is that close, so the reply is
 * never held behind it.
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
import { type AckLibrary, type CachedAck, pickWithin } from './library.js';
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
  /**
   * End of speech → no word yet → decide on the silence alone. Only for an STT that sends words
   * while the caller speaks (a live model): with one that sends nothing before its final, every
   * pause would be decided on silence. The worker passes 150 for a live model (bench:turn,
   * docs/latency.md "Live speech-to-text"). @defaultValue undefined (never)
   */
  silenceBoundMs?: number;
  /**
   * End of speech → the moment a live model's words cover the caller's speech: its word lag less
   * the VAD's silence (`wordsDueAfterEndMs`, src/stt). Words that read finished before then are
   * judged again then. @defaultValue undefined (words are taken as they come)
   */
  wordsDueMs?: number;
  /**
   * End of speech → the reply's first audio, before this session has measured one (then an
   * average of the last turns). A prior for a call's first turn: a hosted LLM's first token alone
   * takes several hundred ms, and in a real room the reply's first audio comes well after the VAD's
   * end of speech (docs/latency.md). Too short a prior leaves the first turn without an ack, as
   * no clip fits the wait. @defaultValue 800
   */
  replyWaitMs: number;
}

export interface EarlyAckAttempt {
  /** The caller's end of speech that triggered it (VAD), timeline clock. */
  endOfSpeechAt: number;
  decidedAt: number;
  /** What decided: the words so far, or the silence alone (no word by `silenceBoundMs`). */
  judgedOn?: 'words' | 'silence';
  /** The wait for the reply the clip had to fit, ms from the decision. */
  expectedWaitMs?: number;
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

/** Weight of the newest turn in the learnt reply wait. */
const REPLY_WAIT_WEIGHT = 0.3;

export class EarlyAck extends EventEmitter<EarlyAckEvents> {
  readonly #session: voice.AgentSession;
  readonly #signals: TurnSignals;
  readonly #opts: EarlyAckOptions;
  readonly #detach: Array<() => void> = [];
  #turn: CallerTurn = { finals: [], interim: '' };
  #lastPhraseId: string | undefined;
  #userSpeaking = false;
  #silenceTimer: NodeJS.Timeout | undefined;
  /** Judges the words again once they are due to cover the speech. */
  #dueTimer: NodeJS.Timeout | undefined;
  /** Expected end of speech → reply audio, ms (learnt). */
  #replyWaitMs: number;
  /** The last end of speech whose reply audio has not come yet (the turn itself is reset at its commit). */
  #awaitingReplySince: number | undefined;

  /** @internal use {@link attachEarlyAck} */
  constructor(session: voice.AgentSession, opts: EarlyAckOptions) {
    super();
    this.#session = session;
    this.#opts = opts;
    this.#replyWaitMs = opts.replyWaitMs;
    this.#signals = observeAgentTurns(opts.agent);
    // At the output's rate before any turn needs one, not at the moment it should play.
    opts.output.prepare(opts.library.all().map((ack) => ack.frames));
    const E = voice.AgentSessionEventTypes;
    this.#listen(session, E.UserInputTranscribed, (ev: voice.UserInputTranscribedEvent) => this.#onTranscript(ev));
    this.#listen(session, E.UserStateChanged, (ev: voice.UserStateChangedEvent) => this.#onUserState(ev));
    this.#listen(session, E.Close, () => this.close());
    this.#listen(this.#signals, 'user_turn_completed', (ev: UserTurnCompleted) => this.#onTurnCompleted(ev));
    this.#listen(opts.output.ackEvents, 'session_audio', (at: number) => this.#onReplyAudio(at));
  }

  /** The reply wait the next clip is chosen for, ms after the end of speech. */
  get replyWaitMs(): number {
    return this.#replyWaitMs;
  }

  close(): void {
    clearTimeout(this.#silenceTimer);
    clearTimeout(this.#dueTimer);
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
      // A live model's word that lands after the end of speech: judge the words again.
      if (!this.#userSpeaking && this.#turn.lastEndOfSpeechAt !== undefined) this.#consider(this.#turn.lastEndOfSpeechAt);
    }
  }

  /** Learns the wait from this turn's end of speech to its reply's first audio. */
  #onReplyAudio(at: number): void {
    const since = this.#awaitingReplySince;
    if (since === undefined || this.#userSpeaking) return;
    this.#awaitingReplySince = undefined;
    const observed = at - since;
    if (observed > 0) this.#replyWaitMs += REPLY_WAIT_WEIGHT * (observed - this.#replyWaitMs);
  }

  #onUserState(ev: voice.UserStateChangedEvent): void {
    if (ev.newState === 'speaking') {
      this.#userSpeaking = true;
      clearTimeout(this.#silenceTimer);
      clearTimeout(this.#dueTimer);
      this.#callerWentOn();
      return;
    }
    if (ev.oldState === 'speaking') {
      this.#userSpeaking = false;
      const at = now();
      const turn = this.#turn;
      turn.lastEndOfSpeechAt = at;
      this.#awaitingReplySince = at;
      this.#consider(at);
      clearTimeout(this.#silenceTimer);
      const bound = this.#opts.silenceBoundMs;
      if (bound === undefined) return;
      // No word yet: the silence decides once the bound has passed without one.
      this.#silenceTimer = setTimeout(() => {
        if (this.#turn === turn && turn.lastEndOfSpeechAt === at && !this.#userSpeaking && !this.#transcript()) this.#consider(at, 'silence');
      }, bound);
    }
  }

  #consider(endOfSpeechAt: number, judgedOn: 'words' | 'silence' = 'words'): void {
    const turn = this.#turn;
    if (turn.heard || turn.current) return;
    const text = this.#transcript();
    if (!text && judgedOn === 'words') return;
    const language = detectAckLanguage(text);
    const decidedAt = now();
    const expectedWaitMs = this.#replyWaitMs - (decidedAt - endOfSpeechAt);
    const skip = (reason: AckReason) => {
      const attempt: EarlyAckAttempt = { endOfSpeechAt, decidedAt, judgedOn, expectedWaitMs, outcome: 'skipped', reason };
      turn.lastSkip = attempt;
      this.emit('attempt', attempt);
    };
    if (judgedOn === 'words' && this.#opts.predict(text, language) < this.#opts.threshold) return skip('not_over');
    const dueAt = endOfSpeechAt + (this.#opts.wordsDueMs ?? 0);
    if (judgedOn === 'words' && decidedAt < dueAt) return this.#judgeWhenDue(turn, endOfSpeechAt, dueAt - decidedAt);
    if (this.#session.agentState === 'speaking' || this.#opts.output.sessionAudioPending) return skip('reply_ready');
    if (this.#opts.library.size === 0) return skip('no_phrase');
    // Only a clip that ends before the reply is expected: the reply never waits behind it.
    const ack = pickWithin(this.#opts.library, language, expectedWaitMs, this.#lastPhraseId);
    if (!ack) return skip('reply_ready');
    const playback = this.#opts.output.play(ack.frames);
    if (!playback) return skip('reply_ready');
    const attempt: EarlyAckAttempt = { endOfSpeechAt, decidedAt, judgedOn, expectedWaitMs, outcome: 'played', reason: 'early', phraseId: ack.id, playback };
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

  #judgeWhenDue(turn: CallerTurn, endOfSpeechAt: number, inMs: number): void {
    clearTimeout(this.#dueTimer);
    this.#dueTimer = setTimeout(() => {
      if (this.#turn === turn && turn.lastEndOfSpeechAt === endOfSpeechAt && !this.#userSpeaking) this.#consider(endOfSpeechAt);
    }, inMs);
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
    const expectedWaitMs = candidate ? undefined : turn.lastSkip?.expectedWaitMs;
    this.#signals.emit('ack', { messageId: message.id, at: now(), outcome: 'skipped', reason, language, ...(expectedWaitMs !== undefined ? { expectedWaitMs: Math.round(expectedWaitMs) } : {}) });
  }
}

/** Early acknowledgements for `session`, through `options.output` (install it as the session's audio output). */
export function attachEarlyAck(
  session: voice.AgentSession,
  options: Omit<EarlyAckOptions, 'threshold' | 'replyWaitMs'> & Partial<Pick<EarlyAckOptions, 'threshold' | 'replyWaitMs'>>,
): EarlyAck {
  return new EarlyAck(session, { threshold: 0.5, replyWaitMs: 800, ...options });
}
