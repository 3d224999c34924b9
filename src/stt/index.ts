/**
 * The worker's speech-to-text: OpenAI's realtime transcription through
 * `@livekit/agents-plugin-openai`, language detected (Korean and English).
 *
 * - A live model (gpt-realtime-whisper, the default; gpt-live-transcribe) has no server-side turn
 *   detection: the plugin sends `turn_detection` nowhere and commits at `vad`'s end of speech
 *   (plugin stt.ts `REALTIME_ONLY_MODELS`, `#forwardVadEvents`); `vad` is the session's Silero
 *   shared through ./shared-vad.ts, so one inference serves both. Words arrive while the caller speaks; the words heard at the end of
 *   speech start the preemptive draft, and once settled they commit the turn without waiting for
 *   the model's final (./preflight.ts); a final that hears other words is answered again (./revision.ts).
 * - Any other model (gpt-4o-transcribe) keeps the plugin's server_vad (silence 350 ms, prefix
 *   600 ms): OpenAI's VAD commits and nothing is heard before its final.
 */
import type { VAD, stt } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import type { TurnSettings } from '../config/types.js';
import { isTurnComplete } from '../turn/transcript-detector.js';
import { type EarlyFinalOptions, PreflightSTT } from './preflight.js';

export { PreflightSTT, normalizedWords, type EarlyFinalOptions, type PreflightCounts, type TranscriptRevision } from './preflight.js';
export { answerRevisions, type RevisionCounts } from './revision.js';
export { shareVad, type SharedVad } from './shared-vad.js';

/** The plugin's realtime-only models (its stt.ts `REALTIME_ONLY_MODELS`). */
export const LIVE_TRANSCRIPTION_MODELS: readonly string[] = ['gpt-realtime-whisper', 'gpt-live-transcribe'];

/**
 * With a live model, the early acknowledgement decides on silence alone when no word has come
 * this long after the VAD's end of speech (bench:turn, docs/latency.md "Live speech-to-text").
 */
export const EARLY_ACK_SILENCE_BOUND_MS = 150;

/** No new word for this long after the words could cover the speech, and they count as settled: a delta's jitter. */
export const EARLY_FINAL_QUIET_MS = 100;

/**
 * When a live model's words are due to cover the caller's speech, ms after the VAD's end of
 * speech: its words trail their audio by `wordLagMs`, and the end of speech comes `silenceMs`
 * after the caller's last sound.
 */
export function wordsDueAfterEndMs(turn: Pick<TurnSettings, 'silenceMs' | 'wordLagMs'>): number {
  return Math.max(0, turn.wordLagMs - turn.silenceMs);
}

/**
 * When a live model's words are settled: its words trail their audio by `wordLagMs` and the VAD's
 * end of speech comes `silenceMs` after the caller's last sound, so the last word is due
 * `wordLagMs - silenceMs` after the end; then a quiet spell without a new word, `wordLagMs` once
 * the model has been later than that.
 *
 * With the transcript detector, words that read unfinished wait for more: the framework commits
 * such a turn only `maxDelayMs` after the caller's last sound, so they may wait until a quiet spell
 * before that. Other detectors can commit sooner on unfinished words (the voice, or silence alone),
 * and their early final does not wait on what the words say.
 */
export function earlyFinalTiming(turn: Pick<TurnSettings, 'silenceMs' | 'wordLagMs' | 'maxDelayMs' | 'detector'>): EarlyFinalOptions {
  const timing = {
    afterEndMs: wordsDueAfterEndMs(turn) + EARLY_FINAL_QUIET_MS,
    quietMs: EARLY_FINAL_QUIET_MS,
    lateQuietMs: Math.max(turn.wordLagMs, EARLY_FINAL_QUIET_MS),
  };
  if (turn.detector !== 'transcript') return timing;
  return { ...timing, readsFinished: (words) => isTurnComplete(words), unfinishedHoldMs: Math.max(0, turn.maxDelayMs - turn.silenceMs - EARLY_FINAL_QUIET_MS) };
}

export function isLiveTranscriptionModel(model: string): boolean {
  return LIVE_TRANSCRIPTION_MODELS.some((live) => model.startsWith(live));
}

export interface SpeechToTextOptions {
  apiKey?: string;
  /** Reaches the realtime socket too: the plugin's STT ignores OPENAI_BASE_URL. */
  baseURL?: string;
  model: string;
  /** Commits a live model's audio at its end of speech: `shareVad(silero).stt`, the session's own boundaries. */
  vad: VAD;
  /** A live model's settled words commit the turn (earlyFinalTiming); unset: its final does. */
  earlyFinal?: EarlyFinalOptions;
}

export function createSpeechToText(options: SpeechToTextOptions): stt.STT {
  const recognizer = new openai.STT({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    model: options.model,
    detectLanguage: true,
    vad: options.vad,
  });
  return isLiveTranscriptionModel(options.model) ? new PreflightSTT(recognizer, { earlyFinal: options.earlyFinal }) : recognizer;
}
