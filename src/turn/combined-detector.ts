/**
 * TURN_DETECTOR=combined in the framework's text-detector slot: at each of the framework's
 * end-of-turn checks (the VAD's end of speech, then every transcript after it) it judges the pause
 * with ./turn-decision.ts — Smart Turn's answer on the caller's voice, the transcript rules on
 * their words, the silence so far — and answers when that judgement takes the turn.
 *
 * The framework awaits `predictEndOfTurn` with no timeout and drops its answer once a newer check
 * or the caller's voice supersedes it, then waits its minDelay from the caller's last sound: so
 * holding the answer until the judgement's silence has passed, and answering "finished", makes
 * the wait the judgement's own (between TURN_MIN_DELAY_MS and TURN_MAX_DELAY_MS).
 *
 * Smart Turn is asked once per pause, at the VAD's end of speech, on the speech the VAD heard
 * (the last 8 s of this turn's segments); in a worker it answers from the worker's inference
 * process (./smart-turn-executor.ts). Words in a check
 * that starts less than `wordLagMs` after the caller's last sound are stale: they may lack the
 * last words (a live STT's words trail their audio), so they can hold the turn but not end it.
 */
import type { llm } from '@livekit/agents';
import { type AudioFrame, AudioResampler } from '@livekit/rtc-node';
import { detectAckLanguage } from '../ack/phrases.js';
import { CONFIG_DEFAULTS } from '../config/defaults.js';
import { now } from '../latency/clock.js';
import { type FrameworkTurnDetector, TranscriptTurnDetector, predictTurnComplete } from './transcript-detector.js';
import { type AudioTurnModel, pcmToFloat } from './smart-turn.js';
import { type TurnPolicy, judgePause } from './turn-decision.js';
import { SAMPLE_RATE, WINDOW_SAMPLES } from './whisper-features.js';

/** The VAD's starts and ends of speech, as the session's stream reports them (src/stt/shared-vad.ts). */
export interface SpeechBoundary {
  type: 'start' | 'end';
  /** Silence already counted at an end, ms: the caller's last sound was this long ago. */
  silenceMs: number;
  /** The speech segment the VAD heard, at an end. */
  frames: readonly AudioFrame[];
}

export interface CombinedDetectorOptions {
  /** The audio model, once loaded; undefined when it cannot be (words and silence decide alone). */
  model: Promise<AudioTurnModel | undefined>;
  policy: TurnPolicy;
  /** How long a word trails its audio in the STT. @defaultValue TURN_WORD_LAG_MS's default */
  wordLagMs?: number;
  /** Longest the judgement waits for the model's answer before going on without it. @defaultValue {@link AUDIO_WAIT_MS} */
  audioWaitMs?: number;
  clock?: () => number;
}

/** How long each end-of-turn check waits for Smart Turn's answer before judging without it, ms. */
export const AUDIO_WAIT_MS = 400;

interface Pause {
  lastSoundAt: number;
  audio: Promise<number | undefined>;
  /** The model's answer once it is in. */
  heard?: number;
  /** Settled when the caller speaks again: every wait in this pause ends. */
  resumed: Promise<void>;
  resume: () => void;
}

export class CombinedTurnDetector implements FrameworkTurnDetector {
  readonly model = 'firstword-combined';
  readonly provider = 'firstword';
  readonly #words = new TranscriptTurnDetector();
  readonly #options: Required<Omit<CombinedDetectorOptions, 'model'>> & Pick<CombinedDetectorOptions, 'model'>;
  #pause: Pause | undefined;
  /** This turn's speech at 16 kHz, newest last, at most the model's 8 s. */
  #speech: Float32Array = new Float32Array(0);
  /** This pause was judged the turn's end: the next speech starts a new turn. */
  #tookTurn = false;

  constructor(options: CombinedDetectorOptions) {
    this.#options = { wordLagMs: CONFIG_DEFAULTS.turn.wordLagMs, audioWaitMs: AUDIO_WAIT_MS, clock: now, ...options };
  }

  /** Feed it the VAD's boundaries; a start ends the current pause's waits. */
  onSpeechBoundary(boundary: SpeechBoundary): void {
    if (boundary.type === 'start') {
      this.#pause?.resume();
      this.#pause = undefined;
      if (this.#tookTurn) this.#speech = new Float32Array(0);
      this.#tookTurn = false;
      return;
    }
    this.#speech = lastWindow(this.#speech, to16k(boundary.frames));
    const speech = this.#speech;
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    const pause: Pause = { lastSoundAt: this.#options.clock() - boundary.silenceMs, audio: Promise.resolve(undefined), resumed, resume };
    pause.audio = this.#options.model
      .then((m) => m?.predict(speech))
      .then(
        (p) => (pause.heard = p),
        () => undefined,
      );
    this.#pause = pause;
  }

  supportsLanguage(language?: Parameters<FrameworkTurnDetector['supportsLanguage']>[0]): Promise<boolean> {
    return this.#words.supportsLanguage(language);
  }

  /** An answer ≥ this is "take the turn now"; this detector answers only 0 or 1. */
  async unlikelyThreshold(): Promise<number> {
    return 0.5;
  }

  async predictEndOfTurn(chatCtx: llm.ChatContext): Promise<number> {
    const text = lastUserText(chatCtx);
    const likelihood = predictTurnComplete(text, detectAckLanguage(text));
    const pause = this.#pause;
    // No pause seen (a turn the VAD did not end): the words alone, as the transcript detector.
    if (!pause) return likelihood;
    const clock = this.#options.clock;
    const fresh = clock() - pause.lastSoundAt >= this.#options.wordLagMs;
    const words = text.trim() === '' ? undefined : { likelihood, fresh };
    const audio = await Promise.race([pause.audio, sleep(this.#options.audioWaitMs, pause.resumed)]);
    if (this.#pause !== pause) return 0;
    const judged = judgePause({ silenceMs: clock() - pause.lastSoundAt, audio: audio ?? undefined, words }, this.#options.policy);
    if (!judged.endTurn) {
      if (!Number.isFinite(judged.endAtSilenceMs)) return 0;
      await sleep(pause.lastSoundAt + judged.endAtSilenceMs - clock(), pause.resumed);
      if (this.#pause !== pause) return 0;
    }
    this.#tookTurn = true;
    return 1;
  }

  /**
   * For the early acknowledgement (its `predict`, asked at the end of speech and at each word
   * after it): 1 when an ack fits the current pause on what is known now, else 0. Outside a
   * pause, the transcript rules' likelihood.
   */
  backchannelFits(text: string): number {
    const likelihood = predictTurnComplete(text, detectAckLanguage(text));
    const pause = this.#pause;
    if (!pause) return likelihood;
    const silenceMs = this.#options.clock() - pause.lastSoundAt;
    const words = text.trim() === '' ? undefined : { likelihood, fresh: silenceMs >= this.#options.wordLagMs };
    // The ack is asked as soon as the pause opens: judge it as if the floor had passed, the ack's own timing is early.ts's.
    return judgePause({ silenceMs: Math.max(silenceMs, this.#options.policy.minSilenceMs), audio: pause.heard, words }, this.#options.policy).backchannelFits ? 1 : 0;
  }
}

function lastUserText(chatCtx: llm.ChatContext): string {
  for (let i = chatCtx.items.length - 1; i >= 0; i--) {
    const item = chatCtx.items[i]!;
    if (item.type === 'message' && item.role === 'user') return item.textContent ?? '';
  }
  return '';
}

/** Resolves after `ms`, or as soon as `cancel` settles. */
function sleep(ms: number, cancel: Promise<void>): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), cancel]).finally(() => clearTimeout(timer));
}

function lastWindow(before: Float32Array, added: Float32Array): Float32Array {
  const total = Math.min(WINDOW_SAMPLES, before.length + added.length);
  const out = new Float32Array(total);
  const fromAdded = Math.min(total, added.length);
  out.set(before.subarray(before.length - (total - fromAdded)), 0);
  out.set(added.subarray(added.length - fromAdded), total - fromAdded);
  return out;
}

/** The VAD's frames (mono, any rate) as 16 kHz floats. */
function to16k(frames: readonly AudioFrame[]): Float32Array {
  const parts: Int16Array[] = [];
  let resampler: AudioResampler | undefined;
  for (const frame of frames) {
    if (frame.sampleRate === SAMPLE_RATE) parts.push(frame.data);
    else {
      resampler ??= new AudioResampler(frame.sampleRate, SAMPLE_RATE, 1);
      for (const out of resampler.push(frame)) parts.push(out.data);
    }
  }
  if (resampler) {
    for (const out of resampler.flush()) parts.push(out.data);
    resampler.close();
  }
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    pcm.set(p, at);
    at += p.length;
  }
  return pcmToFloat(pcm);
}
