/**
 * The local audio end-of-turn model (turn-detector-v1-mini, @livekit/local-inference) asked
 * when the framework asks it: at the first VAD window with at least 200 ms of raw silence while
 * the caller is "speaking" (audio_recognition.ts, MIN_SILENCE_DURATION_MS), on the last 1.2 s
 * of audio then. The answer is held for the VAD's end of speech; speech that resumes first
 * cancels it.
 *
 * So the model is never consulted when Silero's minSilenceDuration is under 224 ms: the VAD has
 * already ended speech (7 windows of silence) before the 8th window reports 224 ms ≥ 200.
 */
import { inference } from '@livekit/agents';
import { createRequire } from 'node:module';
import type { AckLanguage } from '../../src/ack/phrases.js';
import type { VadTimeline } from './vad-trace.js';

/** The framework's own threshold table for the local model (inference/eot/languages.ts). */
export function audioModelThreshold(language: AckLanguage): number {
  return new inference.ThresholdOptions('turn-detector-v1-mini').lookup(language)!;
}

/** The framework's request rule: at least this much raw silence before the window. */
const REQUEST_SILENCE_MS = 200;
const MODEL_INPUT_SAMPLES = 19_200;

interface LocalInference {
  predict(pcm: Int16Array): Promise<number>;
  initEot(): void;
}

export function loadAudioModel(): LocalInference {
  // The package is CommonJS whose ESM face shows `predict` only; require gives the whole binding.
  return createRequire(import.meta.url)('@livekit/local-inference') as LocalInference;
}

export interface AudioRequest {
  /** The window whose INFERENCE_DONE starts the request. */
  window: number;
  atMs: number;
  probability: number;
  /** When the answer is back: the request plus the model's measured inference time. */
  readyAtMs: number;
}

/**
 * Every window at which the framework would start a request, found on a timeline where speech
 * never ends (minSilenceDuration = ∞): each silence run's first window with ≥ 200 ms before it.
 * Whether a given minSilenceDuration still has speech "on" there is for the caller to check.
 */
export async function audioRequests(model: LocalInference, samples: Int16Array, endless: VadTimeline): Promise<AudioRequest[]> {
  const requests: AudioRequest[] = [];
  let speaking = false;
  let armed = false;
  const starts = new Set(endless.decisions.filter((d) => d.type === 'start').map((d) => d.window));
  for (const [window, w] of endless.windows.entries()) {
    if (w.speechBeforeMs > 0) armed = false;
    if (speaking && !armed && w.silenceBeforeMs >= REQUEST_SILENCE_MS) {
      armed = true;
      const end = Math.round((w.atMs / 1000) * 16_000);
      const pcm = samples.slice(Math.max(0, end - MODEL_INPUT_SAMPLES), end);
      const started = performance.now();
      const probability = await model.predict(pcm);
      requests.push({ window, atMs: w.atMs, probability, readyAtMs: w.atMs + (performance.now() - started) });
    }
    if (starts.has(window)) {
      speaking = true;
      armed = false;
    }
  }
  return requests;
}

/**
 * How well the model's answers tell ends from pauses: the chance that a random end scores above
 * a random pause (ROC AUC; 0.5 is a coin, 1 is perfect). NaN without both kinds.
 */
export function separation(pauses: readonly number[], ends: readonly number[]): number {
  if (pauses.length === 0 || ends.length === 0) return Number.NaN;
  let wins = 0;
  for (const e of ends) for (const p of pauses) wins += e > p ? 1 : e === p ? 0.5 : 0;
  return wins / (pauses.length * ends.length);
}
