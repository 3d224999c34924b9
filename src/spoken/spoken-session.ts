/**
 * A room-less session that hears the caller speak: the scripted microphone and STT in front of the
 * production session wiring (src/session.ts), the real Silero VAD, the early acknowledgement when
 * asked for, and the worker's turn budget. `npm run demo` and `npm run bench:turn` both run on it.
 *
 * What the caller hears is recorded at real time, so each spoken turn is measured from the last
 * voiced sample of the caller's audio — the caller's clock — to the first sound and the first
 * content, and every agent sound that began before the caller was done is a false end.
 */
import { IdleTimeoutError, type VAD, type llm, type stt, type tts, voice, waitUntilTimeout } from '@livekit/agents';
import { AckOutput } from '../audio/ack-output.js';
import { RecordingAudioOutput, type RecordedSegment } from '../audio/recording-output.js';
import { type EarlyAck, type EarlyAckAttempt, type TurnCompletePredictor, attachEarlyAck } from '../ack/early.js';
import type { AckLibrary } from '../ack/library.js';
import type { TurnReport } from '../latency/stamps.js';
import type { TurnBudget } from '../latency/turn-budget.js';
import { attachTurnBudget } from '../latency/turn-budget.js';
import { type LlmGeneration, observeAgentTurns } from '../latency/turn-signals.js';
import { type TurnTaking, createAssistant, createSession } from '../session.js';
import { CallerScriptSTT } from './caller-script-stt.js';
import { type ScheduledPiece, ScriptedMicrophone, type SpokenUtterance } from './microphone.js';
import type { RenderedUtterance } from './utterance.js';
import { now } from '../latency/clock.js';

export interface SpokenSessionOptions {
  vad: VAD;
  llm: llm.LLM;
  tts: tts.TTS;
  /** Unset: the framework's turn taking (see createSession). */
  turn?: TurnTaking;
  /** Early acknowledgements with these phrases, judged by `predict`. */
  earlyAck?: { library: AckLibrary; predict: TurnCompletePredictor; silenceBoundMs?: number; wordsDueMs?: number };
  /** Caller's last voiced sample → STT final. @defaultValue 150 */
  sttFinalAfterMs?: number;
  /**
   * A real STT instead of the scripted one (bench:turn: the OpenAI plugin against the local
   * server); `onPiece` hears each piece of caller speech before it is played (to queue its words).
   */
  stt?: { stt: stt.STT; onPiece: (piece: ScheduledPiece) => void };
  /** A turn with no reply this long after the caller's end of speech is reported unanswered. @defaultValue 10000 */
  replyTimeoutMs?: number;
  /** How the turn budget is attached (the demo attaches the worker's). @defaultValue attachTurnBudget */
  attachBudget?: (session: voice.AgentSession, agent: voice.Agent) => TurnBudget;
}

/** How long an interrupt may take to finish the reply before the turn is given up as stuck. */
const INTERRUPT_BOUND_MS = 5000;
/** How long a cut reply's turn report is waited for. */
const REPORT_AFTER_CUT_MS = 2000;

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  try {
    await waitUntilTimeout(promise, ms);
    return true;
  } catch (error) {
    if (error instanceof IdleTimeoutError) return false;
    throw error;
  }
}

export interface SpokenTurn {
  utterance: SpokenUtterance;
  /** The caller's end of speech: the last piece's last voiced sample (timeline clock). */
  endOfSpeechAt: number;
  report?: TurnReport;
  /** Caller's end of speech → first agent sound (ack or reply) / first reply audio, ms. */
  firstSoundMs?: number;
  firstContentMs?: number;
  /** Agent sounds that began while the caller had only paused (before their end of speech). */
  falseEnds: number;
  /** Pauses inside the utterance (each a chance for a false end). */
  pauses: number;
  /** Preemptive drafts started for this turn and thrown away. */
  draftsDiscarded: number;
  /** The reply's LLM request began before the turn's last final transcript: a draft from the words heard early was kept. */
  draftKept: boolean;
  /** Caller's end of speech → the reply's first audio reached the output (played or held), ms. */
  replyReadyMs?: number;
  /** First content − max(reply ready, the ack's end): how long the ack held the content back, ms. */
  contentHeldMs?: number;
  acks: EarlyAckAttempt[];
  segments: RecordedSegment[];
  /** Which of `segments` were acknowledgements (the rest is the reply, or a false end's audio). */
  ackSegments: RecordedSegment[];
  /** When the reply was cut (`cutReplyAfterMs`), timeline clock. */
  interruptRequestedAt?: number;
  /** The interrupt asked for at `interruptRequestedAt` had not finished the reply within INTERRUPT_BOUND_MS. */
  interruptStuck?: boolean;
  /** CPU time of this process over the turn (user + system), ms. */
  cpuMs: number;
}

export class SpokenSession {
  readonly session: voice.AgentSession;
  readonly microphone: ScriptedMicrophone;
  readonly recording: RecordingAudioOutput;
  readonly budget: TurnBudget;
  readonly agent: voice.Agent;
  readonly #earlyAck?: EarlyAck;
  readonly #replyTimeoutMs: number;
  readonly #ackOutput: AckOutput;

  private constructor(parts: {
    ackOutput: AckOutput;
    session: voice.AgentSession;
    microphone: ScriptedMicrophone;
    recording: RecordingAudioOutput;
    budget: TurnBudget;
    agent: voice.Agent;
    earlyAck?: EarlyAck;
    replyTimeoutMs: number;
  }) {
    this.session = parts.session;
    this.microphone = parts.microphone;
    this.recording = parts.recording;
    this.budget = parts.budget;
    this.agent = parts.agent;
    this.#earlyAck = parts.earlyAck;
    this.#replyTimeoutMs = parts.replyTimeoutMs;
    this.#ackOutput = parts.ackOutput;
  }

  static async start(opts: SpokenSessionOptions): Promise<SpokenSession> {
    const microphone = new ScriptedMicrophone(16_000);
    if (opts.stt) microphone.script.on('piece', opts.stt.onPiece);
    const recognizer = opts.stt?.stt ?? new CallerScriptSTT(microphone, { finalAfterMs: opts.sttFinalAfterMs ?? 150 });
    const session = createSession({ vad: opts.vad, stt: recognizer, llm: opts.llm, tts: opts.tts }, { turn: opts.turn });
    const recording = new RecordingAudioOutput({ playout: 'realtime' });
    const ackOutput = new AckOutput(recording);
    session.output.audio = ackOutput;
    session.input.audio = microphone;
    const agent = createAssistant();
    const budget = opts.attachBudget?.(session, agent) ?? attachTurnBudget(session, { agent, tts: opts.tts, logger: false });
    const earlyAck = opts.earlyAck ? attachEarlyAck(session, { agent, output: ackOutput, ...opts.earlyAck }) : undefined;
    await session.start({ agent });
    return new SpokenSession({ session, microphone, recording, budget, agent, earlyAck, ackOutput, replyTimeoutMs: opts.replyTimeoutMs ?? 10_000 });
  }

  /**
   * Speaks `utterance` and waits for the reply to finish playing (or for none to come).
   * `cutReplyAfterMs`: interrupt the reply once it has played that long (a benchmark only needs
   * its start).
   */
  async say(utterance: RenderedUtterance, options: { cutReplyAfterMs?: number } = {}): Promise<SpokenTurn> {
    const cpuBefore = process.cpuUsage();
    const segmentsBefore = this.recording.segments.length;
    const acks: EarlyAckAttempt[] = [];
    const onAttempt = (attempt: EarlyAckAttempt) => acks.push(attempt);
    this.#earlyAck?.on('attempt', onAttempt);
    const signals = observeAgentTurns(this.agent);
    const generations: LlmGeneration[] = [];
    const onRequest = (g: LlmGeneration) => generations.push(g);
    signals.on('llm_request', onRequest);
    const reports: TurnReport[] = [];
    const onReport = (report: TurnReport) => reports.push(report);
    this.budget.on('turn', onReport);
    const audioArrivals: number[] = [];
    const onAudio = (at: number) => audioArrivals.push(at);
    this.#ackOutput.ackEvents.on('session_audio', onAudio);
    const finals: number[] = [];
    const onTranscript = (ev: voice.UserInputTranscribedEvent) => void (ev.isFinal && finals.push(now()));
    this.session.on(voice.AgentSessionEventTypes.UserInputTranscribed, onTranscript);
    try {
      const spoken = await this.microphone.speak(utterance);
      const endOfSpeechAt = spoken.pieces.at(-1)!.lastVoicedAt;
      const { interruptRequestedAt, interruptStuck } = await this.#waitForReply(reports, endOfSpeechAt, options.cutReplyAfterMs);
      const segments = this.recording.segments.slice(segmentsBefore);
      const ackStarts = acks.map((a) => a.playback?.startedAt).filter((t): t is number => t !== undefined);
      const isAck = (segment: RecordedSegment) => ackStarts.some((t) => Math.abs(t - (segment.startedAt ?? Number.NaN)) < 3);
      const starts = segments.filter((s) => s.startedAt !== undefined);
      const heard = starts.filter((s) => s.startedAt! >= endOfSpeechAt - 1);
      const content = heard.find((s) => !isAck(s));
      // A reply to the previous utterance may still have been reported during this one.
      const report = reports.filter((r) => r.at >= spoken.startedAt).at(-1);
      const reply = report?.generationId;
      const cpu = process.cpuUsage(cpuBefore);
      const readyAt = audioArrivals.find((t) => t >= endOfSpeechAt - 1);
      const heardAck = acks.find((a) => a.outcome === 'played' && a.playback?.finishedAt !== undefined && a.playback.startedAt! >= endOfSpeechAt - 1);
      const ackEnd = heardAck?.playback?.finishedAt ?? Number.NEGATIVE_INFINITY;
      const replyRequest = generations.find((g) => g.id === reply)?.requestedAt;
      const lastFinal = finals.filter((t) => t <= (content?.startedAt ?? Number.POSITIVE_INFINITY)).at(-1);
      return {
        utterance: spoken,
        endOfSpeechAt,
        report,
        firstSoundMs: heard[0] ? heard[0].startedAt! - endOfSpeechAt : undefined,
        firstContentMs: content ? content.startedAt! - endOfSpeechAt : undefined,
        falseEnds: starts.filter((s) => s.startedAt! < endOfSpeechAt - 1).length,
        pauses: utterance.pieces.length - 1,
        draftsDiscarded: generations.filter((g) => g.cancelled && g.id !== reply).length,
        draftKept: replyRequest !== undefined && lastFinal !== undefined && replyRequest < lastFinal,
        replyReadyMs: readyAt === undefined ? undefined : readyAt - endOfSpeechAt,
        contentHeldMs: content && readyAt !== undefined ? content.startedAt! - Math.max(readyAt, ackEnd) : undefined,
        acks,
        segments,
        ackSegments: segments.filter(isAck),
        interruptRequestedAt,
        ...(interruptStuck ? { interruptStuck } : {}),
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    } finally {
      this.#earlyAck?.off('attempt', onAttempt);
      this.#ackOutput.ackEvents.off('session_audio', onAudio);
      this.session.off(voice.AgentSessionEventTypes.UserInputTranscribed, onTranscript);
      signals.off('llm_request', onRequest);
      this.budget.off('turn', onReport);
    }
  }

  /**
   * Until a turn answered after the end of speech was reported (the budget reports a turn once
   * its reply has played out). Gives up when no reply has begun `replyTimeoutMs` after the end
   * of speech; a reply that has begun is waited for (up to two minutes).
   */
  async #waitForReply(reports: TurnReport[], endOfSpeechAt: number, cutReplyAfterMs?: number): Promise<{ interruptRequestedAt?: number; interruptStuck?: boolean }> {
    let interruptRequestedAt: number | undefined;
    let deadline = endOfSpeechAt + this.#replyTimeoutMs;
    let speakingSince: number | undefined;
    while (performance.now() < deadline) {
      const done = reports.some((r) => r.at + (r.stamps.playbackStarted ?? Number.NEGATIVE_INFINITY) >= endOfSpeechAt - 1);
      if (done && this.session.agentState !== 'speaking') return { interruptRequestedAt };
      const speaking = this.session.agentState === 'speaking' && performance.now() >= endOfSpeechAt;
      if (speaking && speakingSince === undefined && interruptRequestedAt === undefined) deadline = Math.max(deadline, performance.now() + 120_000);
      speakingSince = speaking ? (speakingSince ?? performance.now()) : undefined;
      if (cutReplyAfterMs !== undefined && speakingSince !== undefined && performance.now() - speakingSince >= cutReplyAfterMs) {
        interruptRequestedAt ??= performance.now();
        if (!(await settlesWithin(this.session.interrupt().await, INTERRUPT_BOUND_MS))) {
          // A speech that never finishes after an interrupt would hold every later turn: say what
          // the output was doing, and give this turn up instead of waiting for ever.
          process.stderr.write(
            `spoken session: the reply was not interrupted within ${INTERRUPT_BOUND_MS} ms ` +
              `(agent ${this.session.agentState}, session audio pending ${this.#ackOutput.sessionAudioPending})\n`,
          );
          return { interruptRequestedAt, interruptStuck: true };
        }
        // The reply was cut: its report follows within moments or not at all (an interrupted
        // reply is not always reported), so the turn is not held up to two minutes for it.
        deadline = Math.min(deadline, performance.now() + REPORT_AFTER_CUT_MS);
        speakingSince = undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { interruptRequestedAt };
  }

  async close(): Promise<void> {
    this.#earlyAck?.close();
    await this.session.close();
    await this.microphone.close();
    this.recording.close();
  }
}
