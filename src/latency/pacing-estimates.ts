/**
 * What the pacer knows before and during a reply. Across replies (one TTS: one voice, one LLM),
 * running means and deviations (ewma.ts) of the LLM's token gaps and their spread, characters per
 * token and per word, sentence lengths, and the provider's first byte, speech rate and real-time
 * factor. Within a reply, its own tokens so far. `planFigures` blends the two into the pessimistic
 * figures one decision is planned with: the earlier replies are a prior worth `priorTokens` gaps,
 * so the first clause ("Sure,", one gap seen) is planned mostly on them, and a reply whose LLM is
 * slower than usual shifts the plan within a few tokens.
 */
import type { EventEmitter } from 'node:events';
import type { TimelineEvents } from '../tts/timeline.js';
import { EwmaEstimate, type EwmaOptions } from './ewma.js';
import type { PlanFigures } from './pacing-model.js';
import { observeTimeline } from './timeline-observer.js';

/** Starting figures, on the slow side, until a TTS has seen a reply. */
export interface PacingPriors {
  /** ≈ 10 tokens/s: slower than most hosted LLMs. */
  tokenGapMs: number;
  /** Standard deviation of the gaps over their mean. */
  gapJitter: number;
  charsPerToken: number;
  /** Characters per word, with its space (English ≈ 6, Korean ≈ 4). */
  wordChars: number;
  sentenceChars: number;
  speechMsPerChar: number;
  firstByteMs: number;
  realTimeFactor: number;
}

export interface PacingOptions {
  priors: PacingPriors;
  /** Gaps of evidence the earlier replies are worth against this reply's own. @defaultValue 4 */
  priorTokens: number;
  /** Planned gap = mean × (1 + k × relative deviation): 2 covers ±50% uniform jitter (1.58 × mean). @defaultValue 2 */
  gapDeviations: number;
  /** Relative deviation never planned below this (a steady stream may still stutter). @defaultValue 0.1 */
  minGapJitter: number;
  /** A word boundary lags the text by up to this many mean words (a long eojeol is common). @defaultValue 2 */
  wordSlack: number;
  /** Planned sentence ≥ mean + k deviations of sentences seen. @defaultValue 2 */
  sentenceDeviations: number;
  /** Planned sentence ≥ the longest seen, fading by half over this many sentences. @defaultValue 40 */
  longestSentenceHalfLife: number;
  /** Planned speech per character ≤ mean − k deviations. @defaultValue 1 */
  speechDeviations: number;
  /**
   * Planned speech per character ≤ (1 − this) × mean: speech is measured per track, but a short
   * piece of digits, symbols or abbreviations speaks shorter than the average. @defaultValue 0.15
   */
  speechShortfall: number;
  /** Margin grows by k deviations of the first byte (a later piece may be slower). @defaultValue 2 */
  firstByteDeviations: number;
  /** Planned real-time factor = mean + k deviations. @defaultValue 1 */
  rtfDeviations: number;
  /** Fixed part of the margin: transport, timers, the player's scheduling, ms. @defaultValue 40 */
  guardMs: number;
  /**
   * Longest the first chunk is held past the moment the first-clause rule would have sent it,
   * ms; past it the reply starts even where a silence is predicted. @defaultValue 1200
   */
  maxHoldMs: number;
  ewma: Partial<EwmaOptions>;
}

export const DEFAULT_PACING_OPTIONS: PacingOptions = {
  priors: {
    tokenGapMs: 100,
    gapJitter: 0.25,
    charsPerToken: 3,
    wordChars: 6,
    sentenceChars: 90,
    speechMsPerChar: 70,
    firstByteMs: 200,
    realTimeFactor: 0.5,
  },
  priorTokens: 4,
  gapDeviations: 2,
  minGapJitter: 0.1,
  wordSlack: 2,
  sentenceDeviations: 2,
  longestSentenceHalfLife: 40,
  speechDeviations: 1,
  speechShortfall: 0.15,
  firstByteDeviations: 2,
  rtfDeviations: 1,
  guardMs: 40,
  maxHoldMs: 1200,
  ewma: {},
};

export type PacingSettings = Partial<Omit<PacingOptions, 'priors'>> & { priors?: Partial<PacingPriors> };

export function resolvePacingOptions(settings: PacingSettings = {}): PacingOptions {
  const priors = { ...DEFAULT_PACING_OPTIONS.priors, ...settings.priors };
  const options = { ...DEFAULT_PACING_OPTIONS, ...settings, priors };
  for (const [name, value] of Object.entries({ ...priors, ...options, priors: 1, ewma: 1 })) {
    if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`pacing ${name} must be a finite number >= 0, got ${String(value)}`);
    }
  }
  if (!(priors.tokenGapMs > 0 && priors.charsPerToken > 0 && priors.speechMsPerChar > 0 && options.longestSentenceHalfLife > 0)) {
    throw new RangeError('pacing priors tokenGapMs, charsPerToken, speechMsPerChar and longestSentenceHalfLife must be > 0');
  }
  return options;
}

/** One reply's tokens so far: gap mean and spread (Welford), characters, words. */
export class ReplyTokens {
  /** Deltas closer together than this came in one burst: one token's worth of time. */
  static readonly BURST_MS = 2;
  tokens = 0;
  chars = 0;
  words = 0;
  gaps = 0;
  #gapMean = 0;
  #gapM2 = 0;
  #lastAt = Number.NaN;
  #inWord = false;

  add(at: number, delta: string): void {
    if (delta.length === 0) return;
    const gap = at - this.#lastAt;
    if (this.tokens > 0 && gap >= ReplyTokens.BURST_MS) {
      this.gaps++;
      const d = gap - this.#gapMean;
      this.#gapMean += d / this.gaps;
      this.#gapM2 += d * (gap - this.#gapMean);
    }
    if (this.tokens === 0 || gap >= ReplyTokens.BURST_MS) this.#lastAt = at;
    this.tokens++;
    this.chars += delta.length;
    for (let i = 0; i < delta.length; i++) {
      const space = /\s/.test(delta[i]!);
      if (!space && !this.#inWord) this.words++;
      this.#inWord = !space;
    }
  }

  get gapMean(): number {
    return this.#gapMean;
  }

  /** Standard deviation over mean (0 with fewer than two gaps). */
  get gapJitter(): number {
    return this.gaps > 1 && this.#gapMean > 0 ? Math.sqrt(this.#gapM2 / (this.gaps - 1)) / this.#gapMean : 0;
  }
}

export interface Estimate {
  mean: number;
  deviation: number;
  /** Samples seen; 0 while the prior stands. */
  samples: number;
}

export interface PacingEstimateView {
  tokenGapMs: Estimate;
  gapJitter: Estimate;
  charsPerToken: Estimate;
  wordChars: Estimate;
  sentenceChars: Estimate;
  /** The longest sentence seen, faded (see `longestSentenceHalfLife`). */
  longestSentenceChars: number;
  speechMsPerChar: Estimate;
  firstByteMs: Estimate;
  realTimeFactor: Estimate;
}

/** The running estimates of one TTS, fed by its timeline and by each reply's pacer. */
export class PacingEstimates {
  readonly options: PacingOptions;
  readonly #gap: EwmaEstimate;
  readonly #jitter: EwmaEstimate;
  readonly #charsPerToken: EwmaEstimate;
  readonly #wordChars: EwmaEstimate;
  readonly #sentence: EwmaEstimate;
  readonly #speech: EwmaEstimate;
  readonly #firstByte: EwmaEstimate;
  readonly #rtf: EwmaEstimate;
  #longestSentence = 0;
  readonly #fade: number;

  constructor(settings: PacingSettings = {}) {
    this.options = resolvePacingOptions(settings);
    const { priors: p, ewma } = this.options;
    this.#gap = new EwmaEstimate(p.tokenGapMs, 0, ewma);
    this.#jitter = new EwmaEstimate(p.gapJitter, 0, ewma);
    this.#charsPerToken = new EwmaEstimate(p.charsPerToken, 0, ewma);
    this.#wordChars = new EwmaEstimate(p.wordChars, 0, ewma);
    this.#sentence = new EwmaEstimate(p.sentenceChars, 0, ewma);
    this.#speech = new EwmaEstimate(p.speechMsPerChar, 0, ewma);
    this.#firstByte = new EwmaEstimate(p.firstByteMs, 0, ewma);
    this.#rtf = new EwmaEstimate(p.realTimeFactor, 0, ewma);
    this.#fade = 0.5 ** (1 / this.options.longestSentenceHalfLife);
  }

  /** A finished reply's tokens (a reply of a few tokens says little about the LLM's pace). */
  observeReply(tokens: ReplyTokens): void {
    if (tokens.gaps < 3) return;
    this.#gap.observe(tokens.gapMean);
    this.#jitter.observe(tokens.gapJitter);
    this.#charsPerToken.observe(tokens.chars / tokens.tokens);
    if (tokens.words > 0) this.#wordChars.observe(tokens.chars / tokens.words);
  }

  observeSentence(chars: number): void {
    if (!(chars > 0)) return;
    this.#sentence.observe(chars);
    this.#longestSentence = Math.max(chars, this.#longestSentence * this.#fade);
  }

  observeSpeech(msPerChar: number): void {
    if (msPerChar > 0) this.#speech.observe(msPerChar);
  }

  observeFirstByte(ms: number): void {
    if (ms >= 0) this.#firstByte.observe(ms);
  }

  observeRealTimeFactor(rtf: number): void {
    if (rtf >= 0) this.#rtf.observe(rtf);
  }

  /** Keeps the provider figures current from a TTS timeline; returns a function that stops it. */
  observe(timeline: EventEmitter<TimelineEvents>): () => void {
    return observeTimeline(this, timeline);
  }

  get estimates(): PacingEstimateView {
    const view = (e: EwmaEstimate): Estimate => ({ mean: e.mean, deviation: e.deviation, samples: e.count });
    return {
      tokenGapMs: view(this.#gap),
      gapJitter: view(this.#jitter),
      charsPerToken: view(this.#charsPerToken),
      wordChars: view(this.#wordChars),
      sentenceChars: view(this.#sentence),
      longestSentenceChars: this.#longestSentence,
      speechMsPerChar: view(this.#speech),
      firstByteMs: view(this.#firstByte),
      realTimeFactor: view(this.#rtf),
    };
  }

  /** The figures for one decision, given the reply's own tokens so far. */
  planFigures(tokens: ReplyTokens): PlanFigures {
    const o = this.options;
    const n0 = o.priorTokens;
    const blend = (prior: number, observed: number, weight: number) =>
      weight > 0 ? (n0 * prior + weight * observed) / (n0 + weight) : prior;
    const gap = blend(this.#gap.mean, tokens.gapMean, tokens.gaps);
    const jitter = Math.sqrt(blend(this.#jitter.mean ** 2, tokens.gapJitter ** 2, Math.max(0, tokens.gaps - 1)));
    const charsPerToken = blend(this.#charsPerToken.mean, tokens.chars / Math.max(1, tokens.tokens), tokens.tokens);
    const wordChars = blend(this.#wordChars.mean, tokens.chars / Math.max(1, tokens.words), tokens.words);
    const speech = this.#speech;
    return {
      tokenGapMs: gap * (1 + o.gapDeviations * Math.max(jitter, o.minGapJitter)),
      charsPerToken,
      wordChars: wordChars * o.wordSlack,
      sentenceChars: Math.max(this.#sentence.upper(o.sentenceDeviations), this.#longestSentence),
      speechMsPerChar: Math.min(speech.lower(o.speechDeviations), speech.mean * (1 - o.speechShortfall)),
      firstByteMs: this.#firstByte.mean,
      nextFirstByteMs: this.#firstByte.mean,
      realTimeFactor: this.#rtf.upper(o.rtfDeviations),
      marginMs: o.guardMs + o.firstByteDeviations * this.#firstByte.deviation,
    };
  }
}
