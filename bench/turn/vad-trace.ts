/**
 * Silero's view of an utterance, once, and what the plugin's state machine makes of it for any
 * minSilenceDuration. The speech probability of each 32 ms window (the plugin's own, smoothed as
 * it smooths it) does not depend on the options; only the start/end decisions do, so they are
 * replayed here rather than running the model once per setting.
 *
 * The real plugin (@livekit/agents-plugin-silero) is used rather than @livekit/local-inference's
 * createVad: it is the VAD the session runs, with its smoothing and thresholds, so the windows
 * and decisions here are the ones a call would see.
 */
import { type VAD, VADEventType } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';

export const VAD_WINDOW_SAMPLES = 512;

export interface VadTrace {
  sampleRate: number;
  /** The smoothed speech probability of each window, as INFERENCE_DONE reports it. */
  probabilities: number[];
  /** The plugin's own START/END decisions at the options it was loaded with, to check the replay. */
  events: { type: 'start' | 'end'; window: number }[];
}

/** Pushes the whole utterance faster than real time, in whole windows, and collects every window. */
export async function traceVad(vad: VAD, samples: Int16Array, sampleRate: number): Promise<VadTrace> {
  const stream = vad.stream();
  const windows = Math.floor(samples.length / VAD_WINDOW_SAMPLES);
  // One window more than is read: the input never ends, so the stream stays open until closed.
  for (let w = 0; w <= windows; w++) {
    const data = w < windows ? samples.slice(w * VAD_WINDOW_SAMPLES, (w + 1) * VAD_WINDOW_SAMPLES) : new Int16Array(VAD_WINDOW_SAMPLES);
    stream.pushFrame(new AudioFrame(data, sampleRate, 1, VAD_WINDOW_SAMPLES));
  }
  const probabilities: number[] = [];
  const events: VadTrace['events'] = [];
  for await (const ev of stream) {
    if (ev.type === VADEventType.INFERENCE_DONE) {
      if (probabilities.length === windows) break;
      probabilities.push(ev.probability);
    } else if (ev.type === VADEventType.START_OF_SPEECH) events.push({ type: 'start', window: probabilities.length - 1 });
    else if (ev.type === VADEventType.END_OF_SPEECH) events.push({ type: 'end', window: probabilities.length - 1 });
  }
  stream.close();
  return { sampleRate, probabilities, events };
}

export interface VadOptions {
  minSilenceMs: number;
  /** @defaultValue 50, the plugin's */
  minSpeechMs?: number;
  /** @defaultValue 0.5, the plugin's */
  activationThreshold?: number;
}

export interface VadWindow {
  /** When the window's last sample arrives, ms from the utterance's first sample. */
  atMs: number;
  /** INFERENCE_DONE's rawAccumulatedSilence / rawAccumulatedSpeech: the counts before this window. */
  silenceBeforeMs: number;
  speechBeforeMs: number;
}

export type VadDecision =
  | { type: 'start'; atMs: number; window: number }
  | {
      type: 'end';
      atMs: number;
      window: number;
      /** The framework's lastSpeakingTime: now − silenceDuration. */
      speechEndMs: number;
    };

export interface VadTimeline {
  windows: VadWindow[];
  decisions: VadDecision[];
}

/** The plugin's start/end rule (agents-plugin-silero vad.ts), window by window. */
export function replayVad(trace: VadTrace, options: VadOptions): VadTimeline {
  const minSpeech = options.minSpeechMs ?? 50;
  const threshold = options.activationThreshold ?? 0.5;
  const windowMs = (VAD_WINDOW_SAMPLES / trace.sampleRate) * 1000;
  let speaking = false;
  let speech = 0;
  let silence = 0;
  const windows: VadWindow[] = [];
  const decisions: VadDecision[] = [];
  trace.probabilities.forEach((p, window) => {
    const atMs = (window + 1) * windowMs;
    windows.push({ atMs, silenceBeforeMs: silence, speechBeforeMs: speech });
    if (p > threshold) {
      speech += windowMs;
      silence = 0;
      if (!speaking && speech >= minSpeech) {
        speaking = true;
        decisions.push({ type: 'start', atMs, window });
      }
    } else {
      silence += windowMs;
      speech = 0;
      if (speaking && silence > options.minSilenceMs) {
        speaking = false;
        decisions.push({ type: 'end', atMs, window, speechEndMs: atMs - silence });
      }
    }
  });
  return { windows, decisions };
}

/** Whether the replay decides exactly as the plugin did (same windows, same order). */
export function replayAgrees(trace: VadTrace, replayed: VadTimeline): boolean {
  const a = trace.events.map((e) => `${e.type}@${e.window}`).join(' ');
  const b = replayed.decisions.map((e) => `${e.type}@${e.window}`).join(' ');
  return a === b;
}
