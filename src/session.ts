/**
 * The one place a voice session is assembled. The LiveKit worker (src/agent.ts) and the offline
 * demo both call these, so what the demo shows is what production runs.
 */
import { type VAD, type llm, type stt, type tts, voice } from '@livekit/agents';
import { HeardTextAgent } from './heard/index.js';

export interface PipelineComponents {
  /** Silero in the worker. Without it, turns end on the STT's end of speech. */
  vad?: VAD;
  stt: stt.STT;
  llm: llm.LLM;
  tts: tts.TTS;
}

export interface SessionSettings {
  /**
   * Caller speech over the agent, in ms, after which the agent pauses (and, once the caller's
   * words confirm it, stops; a cough resumes the reply). @defaultValue the framework's 500 (the
   * worker passes BARGE_IN_MIN_SPEECH_MS, 150 unless set)
   */
  bargeInMinSpeechMs?: number;
  /**
   * How the caller's turn is taken. Unset: the framework's own endpointing (500 / 3,000 ms) and
   * LLM-only preemptive generation — what `npm run bench:turn` calls `framework-defaults`.
   */
  turn?: TurnTaking;
  /**
   * How long after the session's first speech the caller's voice is ignored while a browser's
   * echo canceller converges. @defaultValue the framework's 3,000 ms (phone calls pass 0)
   */
  aecWarmupMs?: number;
}

export interface TurnTaking {
  /** Wait after the end of speech when the detector says the turn is over. */
  minDelayMs: number;
  /** The same when it says the caller is not done. */
  maxDelayMs: number;
  /** LLM and TTS start on the final transcript, before the turn is committed. */
  preemptive: boolean;
  /** A detector in the framework's slot (see src/turn), or `vad`: the silence alone. */
  detection: TurnDetection;
}

/** The framework's turn-detection slot (its type is not exported by name). */
export type TurnDetection = NonNullable<NonNullable<voice.AgentSessionOptions['turnHandling']>['turnDetection']>;

export const ASSISTANT_INSTRUCTIONS = [
  'You are a friendly voice assistant. Everything you write is spoken aloud by a text-to-speech',
  'voice, so write for the ear: plain sentences, no markdown, lists, tables, emoji, code or links.',
  'Be concise: answer in one to three short sentences unless the user asks for more, and put the',
  'answer itself first.',
  'Reply in the language the user speaks: Korean (한국어, polite 해요체) when they speak Korean,',
  'English when they speak English. If they switch languages, switch with them.',
].join('\n');

/**
 * The agent every session runs: instructions only, so that the components stay swappable. A
 * HeardTextAgent keeps only what the caller heard of an interrupted reply in the history, and
 * lets the next reply start without waiting out the interrupted one (see src/heard). A resumed
 * call's agent starts from the history it was given (src/recovery).
 */
export function createAssistant(chatCtx?: llm.ChatContext): voice.Agent {
  return new HeardTextAgent({ instructions: ASSISTANT_INSTRUCTIONS, ...(chatCtx ? { chatCtx } : {}) });
}

/**
 * Builds the session around the given components.
 *
 * Turn handling is pinned rather than left to the framework's defaults: its default end-of-turn
 * model and adaptive interruption call LiveKit Cloud inference (or download a model), which a
 * self-hosted server or an offline run does not have. Silero VAD ends turns when present; the
 * STT's end of speech otherwise.
 */
export function createSession(components: PipelineComponents, settings: SessionSettings = {}): voice.AgentSession {
  const interruption = { mode: 'vad' as const, ...(settings.bargeInMinSpeechMs !== undefined ? { minDuration: settings.bargeInMinSpeechMs } : {}) };
  const turn = settings.turn;
  return new voice.AgentSession({
    vad: components.vad ?? null,
    stt: components.stt,
    llm: components.llm,
    tts: components.tts,
    ...(settings.aecWarmupMs !== undefined ? { aecWarmupDuration: settings.aecWarmupMs } : {}),
    turnHandling: turn
      ? {
          // A detector needs the VAD's end of speech to judge at; without a VAD the STT ends turns.
          turnDetection: components.vad ? turn.detection : 'stt',
          endpointing: { mode: 'fixed', minDelay: turn.minDelayMs, maxDelay: turn.maxDelayMs },
          preemptiveGeneration: { enabled: turn.preemptive, preemptiveTts: turn.preemptive },
          interruption,
        }
      : { turnDetection: components.vad ? 'vad' : 'stt', interruption },
  });
}
