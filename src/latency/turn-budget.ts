/**
 * Per-turn latency budget of a running AgentSession: collects the stamps of src/latency/stamps.ts
 * from the session's events, LiveKit's metrics, the agent's turn signals and our TTS timeline,
 * and reports each turn once its reply is done — one structured log line, a `turn` event, and
 * `reports` for whoever prints a table (the demo).
 *
 * A turn is a spoken one (the agent's `onUserTurnCompleted`) or a typed one: a reply requested
 * with text input (`generateReply`, as `lk.chat` messages and the demo's turns are), timed from
 * the request.
 *
 * Attribution rules (the session interleaves an acknowledgement, preemptive drafts and the reply):
 * - the reply's LLM generation is the newest one answering the turn's user message (for a typed
 *   turn, the newest one since the request);
 * - the reply's TTS stream is the first stream whose first chunk comes after that generation's
 *   first token — a preemptive draft's may come before the turn is decided (./reply-streams.ts);
 * - the ack's playback is the first playback start after it was queued; the reply's is the next
 *   one at or after the reply's first TTS frame.
 */
import { log, type metrics, type tts, voice } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { fromEpoch, now } from './clock.js';
import { type AckSummary, type LiveKitTurnMetrics, type TurnReport, type TurnStamps, buildTurnReport } from './stamps.js';
import type { MediaPath } from './media-path.js';
import { ReplyStreams, type StreamTimelines, hasStreamTimelines } from './reply-streams.js';
import { type AckSignal, type LlmGeneration, type UserTurnCompleted, observeAgentTurns } from './turn-signals.js';
import type { VoiceArrivals } from './voice-arrival.js';

type Logger = Pick<ReturnType<typeof log>, 'info'>;

export interface TurnBudgetOptions {
  /** The agent the session runs; its turn hooks are observed (see src/latency/turn-signals.ts). */
  agent: voice.Agent;
  /** The session's TTS. Ours (`FirstwordTTS`) has a timeline: first chunk, first byte, first frame. */
  tts?: tts.TTS;
  /** Where the log line goes; `false` for none. @defaultValue the LiveKit logger */
  logger?: Logger | false;
  /** Put the user's transcript in the log line (under `turn.pii.transcript`). @defaultValue false */
  logTranscript: boolean;
  /** Reports kept in {@link TurnBudget.reports}. @defaultValue 100 */
  keepReports: number;
  /** In a room: when the caller's voice last reached the agent (src/latency/voice-arrival.ts). */
  voiceArrivals?: Pick<VoiceArrivals, 'lastVoiceEnd'>;
  /** In a room: the legs between caller and agent, added to put the figures on the caller's clock. */
  mediaPath?: { current(): MediaPath | undefined };
}

const DEFAULT_TURN_BUDGET_OPTIONS: Omit<TurnBudgetOptions, 'agent'> = {
  logTranscript: false,
  keepReports: 100,
};

export const TURN_LOG_MESSAGE = 'turn latency';

export interface TurnBudgetEvents {
  turn: [TurnReport];
}

interface OpenTurn {
  index: number;
  /** Undefined for a reply requested directly (typed input): it has no end-of-turn message. */
  message?: UserTurnCompleted['message'];
  stamps: TurnStamps;
  generation?: LlmGeneration;
  streamId?: string;
  speechId?: string;
  ack?: AckSummary;
  livekit: LiveKitTurnMetrics;
  interrupted: boolean;
  closed: boolean;
}

export class TurnBudget extends EventEmitter<TurnBudgetEvents> {
  readonly #session: voice.AgentSession;
  readonly #opts: TurnBudgetOptions;
  readonly #timelines: StreamTimelines | undefined;
  readonly #reports: TurnReport[] = [];
  readonly #streams = new ReplyStreams(() => this.#turn);
  readonly #handles = new Map<string, { handle: voice.SpeechHandle; createdAt: number }>();
  readonly #detach: Array<() => void> = [];
  #turn: OpenTurn | undefined;
  #turnCount = 0;
  #lastFinalAt: number | undefined;
  #lastStoppedAt: number | undefined;
  #previousTurnAt = -Infinity;
  #earlyAck: AckSignal | undefined;
  #output: voice.AudioOutput | null = null;
  /**
   * When the sink says playback began (its event's time), not when this listener ran: the
   * session's own listeners run first and took 8 ms on a loaded CI machine.
   */
  readonly #onOutputStarted = (ev?: voice.PlaybackStartedEvent): void =>
    this.#onPlaybackStarted(ev?.createdAt !== undefined ? Math.min(now(), fromEpoch(ev.createdAt)) : now());
  #closed = false;

  /** @internal use {@link attachTurnBudget} */
  constructor(session: voice.AgentSession, opts: TurnBudgetOptions) {
    super();
    this.#session = session;
    this.#opts = opts;
    this.#timelines = hasStreamTimelines(opts.tts) ? opts.tts : undefined;
    this.#listen();
  }

  /** Finished turns, oldest first (at most `keepReports`). */
  get reports(): readonly TurnReport[] {
    return this.#reports;
  }

  /** Reports the open turn as it stands and stops listening. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#turn) this.#finish(this.#turn);
    for (const detach of this.#detach.splice(0)) detach();
    this.#output?.off(voice.AudioOutput.EVENT_PLAYBACK_STARTED, this.#onOutputStarted);
    this.#output = null;
    this.#handles.clear();
    this.#streams.clear();
  }

  #on(emitter: object, event: string, listener: (...args: any[]) => void): void {
    // Typed emitters do not accept a computed event name; the listeners below are typed per event.
    const target = emitter as EventEmitter;
    target.on(event, listener);
    this.#detach.push(() => target.off(event, listener));
  }

  #listen(): void {
    const signals = observeAgentTurns(this.#opts.agent);
    const E = voice.AgentSessionEventTypes;
    this.#on(signals, 'user_turn_completed', (ev: UserTurnCompleted) => this.#startTurn(ev));
    this.#on(signals, 'llm_request', (g: LlmGeneration) => this.#onGeneration(g));
    this.#on(signals, 'llm_first_token', (g: LlmGeneration) => {
      if (this.#turn && this.#turn.generation === g) this.#turn.stamps.llmFirstToken = g.firstTokenAt;
    });
    this.#on(signals, 'ack', (ev: AckSignal) => this.#onAck(ev));
    this.#on(this.#session, E.UserInputTranscribed, (ev: voice.UserInputTranscribedEvent) => {
      if (ev.isFinal) this.#lastFinalAt = now();
    });
    this.#on(this.#session, E.UserStateChanged, (ev: voice.UserStateChangedEvent) => {
      if (ev.oldState === 'speaking' && ev.newState !== 'speaking') this.#lastStoppedAt = now();
    });
    this.#on(this.#session, E.SpeechCreated, (ev: voice.SpeechCreatedEvent) => {
      const createdAt = now();
      this.#handles.set(ev.speechHandle.id, { handle: ev.speechHandle, createdAt });
      ev.speechHandle.addDoneCallback((handle) => {
        if (this.#turn?.speechId !== handle.id) this.#handles.delete(handle.id);
      });
      // Spoken turns reply with `audio` modality; a reply asked for with text is a typed turn.
      if (ev.source === 'generate_reply' && ev.speechHandle.inputDetails.modality === 'text') {
        this.#startTypedTurn(ev.speechHandle, createdAt);
      }
    });
    this.#on(this.#session, E.MetricsCollected, (ev: voice.MetricsCollectedEvent) => this.#onMetrics(ev.metrics));
    this.#on(this.#session, E.Close, () => this.close());

    if (this.#timelines) this.#detach.push(this.#timelines.onStream((_, timeline) => this.#streams.watch(timeline)));
  }

  #startTurn(ev: UserTurnCompleted): void {
    if (this.#turn) this.#finish(this.#turn);
    const stamps: TurnStamps = { userTurnCompleted: ev.at };
    // Only what happened since the previous turn belongs to this one.
    const previousAt = this.#previousTurnAt;
    this.#previousTurnAt = ev.at;
    if (this.#lastFinalAt !== undefined && this.#lastFinalAt > previousAt) stamps.sttFinal = this.#lastFinalAt;
    if (this.#lastStoppedAt !== undefined && this.#lastStoppedAt > previousAt) {
      stamps.userStoppedSpeaking = this.#lastStoppedAt;
      stamps.vadEndOfSpeech = this.#lastStoppedAt;
    }
    // The caller's last voice before the VAD's end of speech, or before the turn itself when the
    // VAD never said the caller spoke (a starved worker's STT can commit a turn first).
    const voiceEnd = this.#opts.voiceArrivals?.lastVoiceEnd(previousAt, stamps.vadEndOfSpeech ?? ev.at);
    if (voiceEnd !== undefined) stamps.callerVoiceArrived = voiceEnd;
    const turn: OpenTurn = { index: ++this.#turnCount, message: ev.message, stamps, livekit: {}, interrupted: false, closed: false };
    this.#turn = turn;
    if (this.#earlyAck?.messageId === ev.message.id) this.#applyAck(turn, this.#earlyAck);
    this.#earlyAck = undefined;
    const draft = observeAgentTurns(this.#opts.agent).generationFor(ev.message);
    if (draft) this.#useGeneration(turn, draft);
    this.#watchOutput();
  }

  /**
   * A reply requested with text has no end of user speech: the request is its zero (stamped as
   * both `userStoppedSpeaking` and `turnDecided`); the turn is reported when the reply is done.
   */
  #startTypedTurn(handle: voice.SpeechHandle, at: number): void {
    if (this.#closed) return;
    if (this.#turn) this.#finish(this.#turn);
    this.#previousTurnAt = at;
    const turn: OpenTurn = {
      index: ++this.#turnCount,
      stamps: { userStoppedSpeaking: at, turnDecided: at, userTurnCompleted: at },
      speechId: handle.id,
      livekit: {},
      interrupted: false,
      closed: false,
    };
    this.#turn = turn;
    const generation = observeAgentTurns(this.#opts.agent).generationsSince(at).at(-1);
    if (generation) this.#useGeneration(turn, generation);
    this.#watchOutput();
    this.#finishWith(turn, handle);
  }

  #finishWith(turn: OpenTurn, handle: voice.SpeechHandle): void {
    handle.addDoneCallback((done) => {
      turn.interrupted = done.interrupted;
      this.#handles.delete(done.id);
      // LiveKit's TTS/LLM metrics of the reply may be emitted in the same tick as its end.
      setImmediate(() => this.#finish(turn));
    });
  }

  #onGeneration(generation: LlmGeneration): void {
    const turn = this.#turn;
    if (!turn || turn.streamId !== undefined) return;
    const signals = observeAgentTurns(this.#opts.agent);
    const ours = turn.message
      ? signals.generationFor(turn.message) === generation
      : generation.requestedAt >= turn.stamps.userTurnCompleted!;
    if (ours) this.#useGeneration(turn, generation);
  }

  #useGeneration(turn: OpenTurn, generation: LlmGeneration): void {
    turn.generation = generation;
    turn.stamps.llmRequest = generation.requestedAt;
    turn.stamps.llmFirstToken = generation.firstTokenAt;
    this.#streams.claim(turn);
  }

  #onAck(ev: AckSignal): void {
    // The ack may be decided before this budget heard of the turn (listener order): keep it.
    const turn = this.#turn;
    if (!turn || turn.message?.id !== ev.messageId) {
      this.#earlyAck = ev;
      return;
    }
    this.#applyAck(turn, ev);
  }

  #applyAck(turn: OpenTurn, ev: AckSignal): void {
    const { messageId: _matched, at, playedAt, ...summary } = ev;
    turn.ack = summary;
    if (summary.outcome !== 'played') return;
    turn.stamps.ackQueued = at;
    if (playedAt !== undefined) turn.stamps.ackPlaybackStarted = playedAt;
  }

  /** Follows the session's current audio output (a room attaches its own at start). */
  #watchOutput(): void {
    const output = this.#session.output.audio;
    if (output === this.#output) return;
    this.#output?.off(voice.AudioOutput.EVENT_PLAYBACK_STARTED, this.#onOutputStarted);
    this.#output = output;
    output?.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, this.#onOutputStarted);
  }

  #onPlaybackStarted(at: number): void {
    const turn = this.#turn;
    if (!turn) return;
    const { stamps } = turn;
    if (stamps.ackQueued !== undefined && stamps.ackPlaybackStarted === undefined) {
      stamps.ackPlaybackStarted = at;
      return;
    }
    if (stamps.playbackStarted !== undefined) return;
    // Without a TTS timeline the reply's first frame is unknown: the next start after the ack is it.
    if (this.#timelines && stamps.ttsFirstFrame === undefined) return;
    // A sink's Date.now() is whole milliseconds: never before the frame it plays existed.
    stamps.playbackStarted = Math.max(at, stamps.ttsFirstFrame ?? -Infinity);
  }

  #onMetrics(m: metrics.AgentMetrics): void {
    const turn = this.#turn;
    if (!turn) return;
    if (m.type === 'eou_metrics') {
      if (turn.speechId !== undefined || !turn.message) return;
      turn.speechId = m.speechId;
      turn.livekit.endOfUtteranceDelayMs = m.endOfUtteranceDelayMs;
      turn.livekit.transcriptionDelayMs = m.transcriptionDelayMs;
      if (m.lastSpeakingTimeMs > 0) {
        turn.stamps.userStoppedSpeaking = fromEpoch(m.lastSpeakingTimeMs);
        turn.stamps.turnDecided = fromEpoch(m.lastSpeakingTimeMs + m.endOfUtteranceDelayMs);
      }
      const handle = m.speechId === undefined ? undefined : this.#handles.get(m.speechId)?.handle;
      if (handle) this.#finishWith(turn, handle);
      return;
    }
    if (turn.speechId === undefined || !('speechId' in m) || m.speechId !== turn.speechId) return;
    if (m.type === 'llm_metrics' && !m.cancelled) turn.livekit.llmTtftMs = m.ttftMs;
    if (m.type === 'tts_metrics' && turn.livekit.ttsTtfbMs === undefined && m.ttfbMs >= 0) turn.livekit.ttsTtfbMs = m.ttfbMs;
  }

  #finish(turn: OpenTurn): void {
    if (turn.closed) return;
    turn.closed = true;
    if (this.#turn === turn) this.#turn = undefined;
    if (turn.speechId !== undefined) this.#handles.delete(turn.speechId);
    const stamps = { ...turn.stamps };
    stamps.turnDecided ??= stamps.userTurnCompleted;
    const report = buildTurnReport({
      turn: turn.index,
      speechId: turn.speechId,
      streamId: turn.streamId,
      generationId: turn.generation?.id,
      stamps,
      ack: turn.ack,
      livekit: turn.livekit,
      interrupted: turn.interrupted,
      path: this.#opts.mediaPath?.current(),
    });
    this.#reports.push(report);
    if (this.#reports.length > this.#opts.keepReports) this.#reports.shift();
    this.#log(report, turn);
    this.emit('turn', report);
  }

  #log(report: TurnReport, turn: OpenTurn): void {
    const logger = this.#opts.logger === undefined ? log() : this.#opts.logger;
    if (!logger) return;
    const fields: Record<string, unknown> = {
      turn: report.turn,
      speechId: report.speechId,
      atEpochMs: report.atEpochMs,
      firstContentMs: report.firstContentMs,
      firstContentAt: report.firstContentAt,
      firstSoundMs: report.firstSoundMs,
      ackFirstAudioMs: report.ackFirstAudioMs,
      path: report.path,
      stages: report.stages,
      stamps: report.stamps,
      ack: report.ack,
      livekit: report.livekit,
      interrupted: report.interrupted,
    };
    if (this.#opts.logTranscript) fields['turn.pii.transcript'] = turn.message?.textContent ?? turn.generation?.userText ?? '';
    logger.info(fields, TURN_LOG_MESSAGE);
  }
}

/**
 * Starts the budget on `session`. Attach before `session.start()` so the first turn is seen; the
 * budget closes itself with the session.
 */
export function attachTurnBudget(
  session: voice.AgentSession,
  options: Pick<TurnBudgetOptions, 'agent'> & Partial<Omit<TurnBudgetOptions, 'agent'>>,
): TurnBudget {
  return new TurnBudget(session, { ...DEFAULT_TURN_BUDGET_OPTIONS, ...options });
}
