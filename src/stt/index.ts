/**
 * The worker's speech-to-text: OpenAI's realtime transcription through
 * `@livekit/agents-plugin-openai`, language detected (Korean and English).
 *
 * - A live model (gpt-realtime-whisper, the default; gpt-live-transcribe) has no server-side turn
 *   detection: the plugin sends `turn_detection` nowhere and commits at `vad`'s end of speech
 *   (plugin stt.ts `REALTIME_ONLY_MODELS`, `#forwardVadEvents`); `vad` is the session's Silero
 *   shared through ./shared-vad.ts, so one inference serves both. Words arrive while the caller speaks; the words heard at the end of
 *   speech start the preemptive draft (./preflight.ts).
 * - Any other model (gpt-4o-transcribe) keeps the plugin's server_vad (silence 350 ms, prefix
 *   600 ms): OpenAI's VAD commits and nothing is heard before its final.
 */
import type { VAD, stt } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { PreflightSTT } from './preflight.js';

export { PreflightSTT, normalizedWords, type PreflightCounts } from './preflight.js';
export { shareVad, type SharedVad } from './shared-vad.js';

/** The plugin's realtime-only models (its stt.ts `REALTIME_ONLY_MODELS`). */
export const LIVE_TRANSCRIPTION_MODELS: readonly string[] = ['gpt-realtime-whisper', 'gpt-live-transcribe'];

/**
 * With a live model, the early acknowledgement decides on silence alone when no word has come
 * this long after the VAD's end of speech (bench:turn, docs/latency.md "Live speech-to-text").
 */
export const EARLY_ACK_SILENCE_BOUND_MS = 150;

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
}

export function createSpeechToText(options: SpeechToTextOptions): stt.STT {
  const recognizer = new openai.STT({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    model: options.model,
    detectLanguage: true,
    vad: options.vad,
  });
  return isLiveTranscriptionModel(options.model) ? new PreflightSTT(recognizer) : recognizer;
}
