/**
 * What the pacer knows before and during a reply. Across replies (one TTS: one voice, one LLM),
 * running means and deviations (ewma.ts) of the LLM's pace and lateness, characters per
 * token and per word, sentence lengths, and the provider's first byte, speech rate and real-time
 * factor. Within a reply, its own tokens so far. `planFigures` blends the two into the pessimistic
 * figures one decision is planned with: the earlier replies are a prior worth `priorTokens` gaps,
 * so the first clause ("Sure,", one gap seen) is planned mostly on them, and a reply whose LLM is
 * slower than usual shifts the plan within a few tokens.
 */
import { EwmaEstimate, type EwmaOptions } from './ewma.js';
import type { PlanFigures } from './pacing-model.js';

/** Starting figures, on the slow side, until a TTS has seen a reply. */
export interface PacingPriors {
  /** ≈ 10 tokens/s: slower than most hosted LLMs. */
  tokenGapMs: number;
  /** How far arrivals fall behind the steady pace: their standard deviation over the gap. */
  lateness: number;
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
  /** Text is planned to arrive this many deviations of lateness behind the steady pace. @defaultValue 2 */
  latenessDeviations: number;
  /** Lateness (over the gap) never planned below this: a steady stream may still stutter. @defaultValue 0.25 */
  minLateness: number;
  /** A word boundary lags the text by up to this many mean words (a long eojeol is common). @defaultValue 2 */
  wordSlack: number;
  /** Planned sentence = mean + k deviations of sentences seen. @defaultValue 2 */
  sentenceDeviations: number;
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
    lateness: 0.5,
    charsPerToken: 3,
    wordChars: 6,
    sentenceChars: 90,
    speechMsPerChar: 70,
    firstByteMs: 200,
    realTimeFactor: 0.5,
  },
  priorTokens: 4,
  latenessDeviations: 2,
  minLateness: 0.25,
  wordSlack: 2,
  sentenceDeviations: 2,
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
  if (!(priors.tokenGapMs > 0 && priors.charsPerToken > 0 && priors.speechMsPerChar > 0)) {
    throw new RangeError('pacing priors tokenGapMs, charsPerToken and speechMsPerChar must be > 0');
  }
  return options;
}

/**
 * One reply's tokens so far. Their pace is the slope of a least-squares line through (token
 * index, arrival time), and their spread the standard deviation of the arrivals around that line:
 * unlike the mean and spread of single gaps, neither is thrown by a burst of deltas delivered
 * together after a stall (one long gap, then several of none), and the spread is what "late" means
 * for text: how far behind the steady pace an arrival can fall.
 */
export class ReplyTokens {
  /** A reply spanning less than a few of these is one burst, not a pace. */
  static readonly MIN_GAP_MS = 2;
  tokens = 0;
  chars = 0;
  words = 0;
  #t0 = 0;
  #sx = 0;
  #sy = 0;
  #sxx = 0;
  #sxy = 0;
  #syy = 0;
  #lastAt = 0;
  #inWord = false;

  add(at: number, delta: string): void {
    if (delta.length === 0) return;
    if (this.tokens === 0) this.#t0 = at;
    this.#lastAt = at;
    const x = this.tokens;
    const y = at - this.#t0;
    this.#sx += x;
    this.#sy += y;
    this.#sxx += x * x;
    this.#sxy += x * y;
    this.#syy += y * y;
    this.tokens++;
    this.chars += delta.length;
    for (let i = 0; i < delta.length; i++) {
      const space = /\s/.test(delta[i]!);
      if (!space && !this.#inWord) this.words++;
      this.#inWord = !space;
    }
  }

  /** Intervals between tokens seen. */
  get gaps(): number {
    return Math.max(0, this.tokens - 1);
  }

  /** First token to the latest, ms. */
  get spanMs(): number {
    return this.#lastAt - this.#t0;
  }

  /** Milliseconds per token (0 before two tokens). */
  get gapMean(): number {
    const n = this.tokens;
    const d = n * this.#sxx - this.#sx * this.#sx;
    return n > 1 && d > 0 ? Math.max(0, (n * this.#sxy - this.#sx * this.#sy) / d) : 0;
  }

  /** Standard deviation of arrivals around the steady pace, over the pace (0 before three tokens). */
  get lateness(): number {
    const n = this.tokens;
    const slope = this.gapMean;
    if (n < 3 || slope <= 0) return 0;
    const intercept = (this.#sy - slope * this.#sx) / n;
    const residual = this.#syy - intercept * this.#sy - slope * this.#sxy;
    return Math.sqrt(Math.max(0, residual) / (n - 2)) / slope;
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
  lateness: Estimate;
  charsPerToken: Estimate;
  wordChars: Estimate;
  sentenceChars: Estimate;
  speechMsPerChar: Estimate;
  firstByteMs: Estimate;
  realTimeFactor: Estimate;
}

/** The running estimates of one TTS, fed by its timeline and by each reply's pacer. */
export class PacingEstimates {
  readonly options: PacingOptions;
  readonly #gap: EwmaEstimate;
  readonly #lateness: EwmaEstimate;
  readonly #charsPerToken: EwmaEstimate;
  readonly #wordChars: EwmaEstimate;
  readonly #sentence: EwmaEstimate;
  readonly #speech: EwmaEstimate;
  readonly #firstByte: EwmaEstimate;
  readonly #rtf: EwmaEstimate;

  constructor(settings: PacingSettings = {}) {
    this.options = resolvePacingOptions(settings);
    const { priors: p, ewma } = this.options;
    this.#gap = new EwmaEstimate(p.tokenGapMs, 0, ewma);
    this.#lateness = new EwmaEstimate(p.lateness, 0, ewma);
    this.#charsPerToken = new EwmaEstimate(p.charsPerToken, 0, ewma);
    this.#wordChars = new EwmaEstimate(p.wordChars, 0, ewma);
    this.#sentence = new EwmaEstimate(p.sentenceChars, 0, ewma);
    this.#speech = new EwmaEstimate(p.speechMsPerChar, 0, ewma);
    this.#firstByte = new EwmaEstimate(p.firstByteMs, 0, ewma);
    this.#rtf = new EwmaEstimate(p.realTimeFactor, 0, ewma);
  }

  /** A finished reply's tokens (a reply of a few tokens, or of one burst, says little about the LLM's pace). */
  observeReply(tokens: ReplyTokens): void {
    if (tokens.gaps < 3 || tokens.spanMs < 3 * ReplyTokens.MIN_GAP_MS) return;
    this.#gap.observe(tokens.gapMean);
    this.#lateness.observe(tokens.lateness);
    this.#charsPerToken.observe(tokens.chars / tokens.tokens);
    if (tokens.words > 0) this.#wordChars.observe(tokens.chars / tokens.words);
  }

  /** A sentence of a reply, as sentence chunking would cut it. */
  observeSentence(chars: number): void {
    if (chars > 0) this.#sentence.observe(chars);
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

  get estimates(): PacingEstimateView {
    const view = (e: EwmaEstimate): Estimate => ({ mean: e.mean, deviation: e.deviation, samples: e.count });
    return {
      tokenGapMs: view(this.#gap),
      lateness: view(this.#lateness),
      charsPerToken: view(this.#charsPerToken),
      wordChars: view(this.#wordChars),
      sentenceChars: view(this.#sentence),
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
    // The reply's own pace weighs by the time it spans, in gaps of the prior's pace: a burst of
    // tokens delivered together after a stall says almost nothing yet, a second of steady tokens a lot.
    const evidence = Math.min(tokens.gaps, tokens.spanMs / this.#gap.mean);
    const gap = blend(this.#gap.mean, tokens.gapMean, evidence);
    const lateness = Math.sqrt(blend(this.#lateness.mean ** 2, tokens.lateness ** 2, Math.max(0, evidence - 1)));
    const charsPerToken = blend(this.#charsPerToken.mean, tokens.chars / Math.max(1, tokens.tokens), tokens.tokens);
    const wordChars = blend(this.#wordChars.mean, tokens.chars / Math.max(1, tokens.words), tokens.words);
    const speech = this.#speech;
    return {
      tokenGapMs: gap,
      latenessMs: gap * o.latenessDeviations * Math.max(lateness, o.minLateness),
      charsPerToken,
      wordChars: wordChars * o.wordSlack,
      // A few sentences say little about the next one: the prior weighs like `priorTokens` of them.
      sentenceChars: blend(o.priors.sentenceChars, this.#sentence.upper(o.sentenceDeviations), this.#sentence.count),
      speechMsPerChar: Math.min(speech.lower(o.speechDeviations), speech.mean * (1 - o.speechShortfall)),
      firstByteMs: this.#firstByte.mean,
      nextFirstByteMs: this.#firstByte.mean,
      realTimeFactor: this.#rtf.upper(o.rtfDeviations),
      marginMs: o.guardMs + o.firstByteDeviations * this.#firstByte.deviation,
    };
  }
}
