/**
 * Adaptive first chunk: how long the first chunk of a reply must be so that, while it plays, the
 * LLM writes chunk 2 and the provider starts voicing it — no silence between the two — and no
 * longer, because every extra character is LLM time the listener spends in silence.
 *
 * Time 0 is the moment chunk 1 (L characters) is cut and sent. With
 *   r  = LLM characters per second after the cut,     a  = ms of speech per character,
 *   F1 = provider first byte of chunk 1,              F2 = first byte of chunk 2,
 *   ρ  = provider real-time factor,                   N  = characters of chunk 2,
 *   m  = safety margin,
 * chunk 1 plays from F1 until F1 + a·L, and chunk 2 is ready at
 *   max(T2 + F2, F1 + ρ·a·L)      (concurrent providers: Cartesia contexts start a piece's model
 *                                   latency on arrival, but a context voices its pieces in order)
 *   max(T2, F1 + ρ·a·L) + F2      (sequential providers: one request at a time per socket, the
 *                                   next one's latency starts when the previous one is generated)
 * where T2 = 1000·N/r is the LLM time to write chunk 2. No underrun means F1 + a·L − m ≥ ready2:
 *   a·L ≥ T2 + F2 − F1 + m                      (the LLM and the provider's latency for chunk 2)
 *   a·L·(1 − ρ) ≥ m    or    ≥ F2 + m           (generation keeps ahead of playback)
 * Chunk 1's own first byte is already part of the time to first audio, so only the difference
 * F2 − F1 (jitter, in practice) has to be covered; the margin holds that jitter plus transport and
 * timer noise.
 *
 * The chunker may cut the first chunk at a clause or sentence end from ⌈target/2⌉ characters
 * (`ChunkerOptions.firstChunkTargetChars`), and after a sentence-end cut chunk 2 is a whole next
 * sentence, so the target is the covering length divided by that fraction.
 */
import type { EventEmitter } from 'node:events';
import type { TimelineEvents } from '../tts/timeline.js';
import { EwmaEstimate, type EwmaOptions } from './ewma.js';
import { observeTimeline } from './timeline-observer.js';

/** What the plan needs to know; every figure is a pessimistic estimate already. */
export interface FirstChunkInputs {
  /** LLM text rate after the first chunk, characters per second. */
  llmCharsPerSec: number;
  /** Speech per character of text, ms (Korean ≈ 110, English ≈ 65). */
  speechMsPerChar: number;
  /** Provider latency of chunk 1, send → first audio byte, ms. */
  firstByteMs: number;
  /** Provider latency of chunk 2, ms. @defaultValue `firstByteMs` */
  nextFirstByteMs?: number;
  /** Provider generation time / audio time (0.1–0.5 for streaming TTS; ≥ 1 cannot keep up). */
  realTimeFactor: number;
  /** Characters of chunk 2 (a whole sentence in the worst case). */
  nextChunkChars: number;
  /** True when the provider starts chunk 2's latency only after chunk 1 is generated. */
  sequentialProvider: boolean;
  /** Headroom added to chunk 2's deadline, ms. */
  marginMs: number;
}

export interface FirstChunkBounds {
  /** Shortest target ever returned: very short requests sound clipped. @defaultValue 10 */
  minChars: number;
  /** Longest target ever returned: past this, waiting costs more than a gap. @defaultValue 160 */
  maxChars: number;
  /** Fraction of the target at which the chunker may already cut at a boundary. @defaultValue 0.5 */
  naturalCutFraction: number;
}

export const DEFAULT_FIRST_CHUNK_BOUNDS: FirstChunkBounds = { minChars: 10, maxChars: 160, naturalCutFraction: 0.5 };

export interface FirstChunkPlan {
  /** Value for `ChunkerOptions.firstChunkTargetChars`. */
  targetChars: number;
  /** Shortest first chunk whose playback covers chunk 2 (before bounds). */
  coverChars: number;
  /** Playback of `coverChars`, ms. */
  coverMs: number;
  /** False when no length within `maxChars` covers chunk 2 (slow LLM, or ρ ≥ 1): the target is then `maxChars`. */
  feasible: boolean;
  /** What set the target: the LLM/latency race, generation speed, or a bound. */
  limitedBy: 'text' | 'generation' | 'min' | 'max';
}

/** Pure: the first-chunk target for one set of estimates (see the module comment for the derivation). */
export function planFirstChunk(inputs: FirstChunkInputs, bounds: Partial<FirstChunkBounds> = {}): FirstChunkPlan {
  const { minChars, maxChars, naturalCutFraction } = { ...DEFAULT_FIRST_CHUNK_BOUNDS, ...bounds };
  if (!(minChars >= 1 && maxChars >= minChars)) throw new RangeError(`invalid bounds: minChars ${minChars}, maxChars ${maxChars}`);
  if (!(naturalCutFraction > 0 && naturalCutFraction <= 1)) throw new RangeError(`naturalCutFraction must be in (0, 1]`);
  const a = inputs.speechMsPerChar;
  const r = inputs.llmCharsPerSec;
  const rho = inputs.realTimeFactor;
  if (!(a > 0) || !(r > 0) || !(rho >= 0) || !(inputs.nextChunkChars >= 0) || !(inputs.firstByteMs >= 0)) {
    throw new RangeError('planFirstChunk: speechMsPerChar and llmCharsPerSec must be > 0; other inputs >= 0');
  }
  const f1 = inputs.firstByteMs;
  const f2 = inputs.nextFirstByteMs ?? f1;
  const m = Math.max(0, inputs.marginMs);
  const t2 = Number.isFinite(r) ? (1000 * inputs.nextChunkChars) / r : 0;

  const textChars = Math.max(0, t2 + f2 - f1 + m) / a;
  const generationNeedMs = inputs.sequentialProvider ? f2 + m : m;
  const generationChars = rho < 1 ? generationNeedMs / (a * (1 - rho)) : Infinity;

  const cover = Math.max(textChars, generationChars, 1);
  const coverChars = Number.isFinite(cover) ? Math.ceil(cover) : Infinity;
  const wanted = Math.ceil(coverChars / naturalCutFraction);
  let limitedBy: FirstChunkPlan['limitedBy'] = generationChars > textChars ? 'generation' : 'text';
  let targetChars = wanted;
  if (wanted < minChars) {
    targetChars = minChars;
    limitedBy = 'min';
  } else if (!(wanted <= maxChars)) {
    targetChars = maxChars;
    limitedBy = 'max';
  }
  return {
    targetChars,
    coverChars,
    coverMs: coverChars * a,
    feasible: wanted <= maxChars,
    limitedBy,
  };
}

/** Starting estimates, chosen to err on the long (safe) side until the TTS has seen a turn. */
export interface AdaptivePriors {
  /** ≈ 10 tokens/s of English or 25 of Korean: slower than most hosted LLMs. */
  llmCharsPerSec: number;
  /** English-like speech; Korean voices speak fewer characters per second, which only lengthens the real cover. */
  speechMsPerChar: number;
  firstByteMs: number;
  realTimeFactor: number;
  laterChunkChars: number;
}

export interface AdaptiveFirstChunkOptions extends FirstChunkBounds {
  /** True when the provider serves one request at a time per socket (Resemble). @defaultValue false */
  sequentialProvider: boolean;
  /** Fixed part of the margin: transport, timers, the player's scheduling, ms. @defaultValue 40 */
  guardMs: number;
  /** Planned LLM rate = mean − k·deviation (never below half the mean). @defaultValue 1 */
  rateDeviations: number;
  /** Planned chunk-2 length ≥ mean + k·deviation of later chunks. @defaultValue 2 */
  chunkDeviations: number;
  /**
   * Planned chunk-2 length ≥ the longest later chunk seen, fading by half over this many later
   * chunks: one long sentence after a short first one is what leaves a gap, and it is rare enough
   * that a mean plus deviations forgets it. @defaultValue 40
   */
  longestChunkHalfLife: number;
  /** Planned speech per character ≤ mean − k·deviation (shorter speech covers less). @defaultValue 1 */
  speechDeviations: number;
  /**
   * Planned speech per character ≤ (1 − this) × mean. Speech per character is measured per track
   * (a whole reply on Cartesia), but a first chunk of digits, symbols or abbreviations speaks
   * shorter or longer than the average, and the plan must hold for the short case. @defaultValue 0.15
   */
  speechShortfall: number;
  /** Margin grows by k deviations of the provider's first byte (chunk 2 may be slower than chunk 1). @defaultValue 2 */
  firstByteDeviations: number;
  priors: AdaptivePriors;
  ewma: Partial<EwmaOptions>;
}

export const DEFAULT_ADAPTIVE_OPTIONS: AdaptiveFirstChunkOptions = {
  ...DEFAULT_FIRST_CHUNK_BOUNDS,
  sequentialProvider: false,
  guardMs: 40,
  rateDeviations: 1,
  chunkDeviations: 2,
  longestChunkHalfLife: 40,
  speechDeviations: 1,
  speechShortfall: 0.15,
  firstByteDeviations: 2,
  priors: { llmCharsPerSec: 40, speechMsPerChar: 70, firstByteMs: 200, realTimeFactor: 0.5, laterChunkChars: 90 },
  ewma: {},
};

/** The running estimates, as means ± deviations with their sample counts. */
export interface LatencyEstimates {
  llmCharsPerSec: Estimate;
  speechMsPerChar: Estimate;
  firstByteMs: Estimate;
  realTimeFactor: Estimate;
  laterChunkChars: Estimate;
  /** The longest later chunk seen, faded (see `longestChunkHalfLife`). */
  longestLaterChunkChars: number;
}

export interface Estimate {
  mean: number;
  deviation: number;
  samples: number;
}

/**
 * Running estimates for one TTS (one voice, one LLM) and the first-chunk plan they imply.
 * Feed it with `observe*()` or connect it to a TTS timeline with `observe(timeline)`.
 */
export class AdaptiveFirstChunk {
  readonly options: AdaptiveFirstChunkOptions;
  readonly #rate: EwmaEstimate;
  readonly #speech: EwmaEstimate;
  readonly #firstByte: EwmaEstimate;
  readonly #rtf: EwmaEstimate;
  readonly #laterChunk: EwmaEstimate;
  #longestChunk: number;
  readonly #longestFade: number;
  #beforePlan: Array<() => void> = [];
  #lastPlan: FirstChunkPlan | undefined;

  constructor(options: Partial<Omit<AdaptiveFirstChunkOptions, 'priors'>> & { priors?: Partial<AdaptivePriors> } = {}) {
    const priors = { ...DEFAULT_ADAPTIVE_OPTIONS.priors, ...options.priors };
    this.options = { ...DEFAULT_ADAPTIVE_OPTIONS, ...options, priors };
    const e = this.options.ewma;
    this.#rate = new EwmaEstimate(priors.llmCharsPerSec, 0, e);
    this.#speech = new EwmaEstimate(priors.speechMsPerChar, 0, e);
    this.#firstByte = new EwmaEstimate(priors.firstByteMs, 0, e);
    this.#rtf = new EwmaEstimate(priors.realTimeFactor, 0, e);
    this.#laterChunk = new EwmaEstimate(priors.laterChunkChars, 0, e);
    // Learned only: the prior already stands in the mean until the first observation.
    this.#longestChunk = 0;
    if (!(this.options.longestChunkHalfLife > 0)) throw new RangeError('longestChunkHalfLife must be > 0');
    this.#longestFade = 0.5 ** (1 / this.options.longestChunkHalfLife);
    // Fails fast on bad bounds rather than at the first turn.
    planFirstChunk(this.#inputs(), this.options);
  }

  /** LLM characters per second, measured between chunk cuts of one reply. */
  observeLlmRate(charsPerSec: number): void {
    if (charsPerSec > 0) this.#rate.observe(charsPerSec);
  }

  /** Audio ms per character of text that produced it. */
  observeSpeech(msPerChar: number): void {
    if (msPerChar > 0) this.#speech.observe(msPerChar);
  }

  /** Send of a reply's first text → its first audio byte, ms. */
  observeFirstByte(ms: number): void {
    if (ms >= 0) this.#firstByte.observe(ms);
  }

  /** Generation time / audio time of a request whose text was all sent before its audio began. */
  observeRealTimeFactor(rtf: number): void {
    if (rtf >= 0) this.#rtf.observe(rtf);
  }

  /** Length of a chunk after the first one (what chunk 2 may be). */
  observeLaterChunk(chars: number): void {
    if (!(chars > 0)) return;
    this.#laterChunk.observe(chars);
    this.#longestChunk = Math.max(chars, this.#longestChunk * this.#longestFade);
  }

  /**
   * Listens to a TTS timeline and keeps the estimates current; returns a function that stops
   * listening. Per-reply LLM rates are committed when the next plan is made.
   */
  observe(timeline: EventEmitter<TimelineEvents>): () => void {
    const observer = observeTimeline(this, timeline);
    this.#beforePlan.push(observer.commit);
    return () => {
      observer.stop();
      this.#beforePlan = this.#beforePlan.filter((f) => f !== observer.commit);
    };
  }

  get estimates(): LatencyEstimates {
    const view = (e: EwmaEstimate): Estimate => ({ mean: e.mean, deviation: e.deviation, samples: e.count });
    return {
      llmCharsPerSec: view(this.#rate),
      speechMsPerChar: view(this.#speech),
      firstByteMs: view(this.#firstByte),
      realTimeFactor: view(this.#rtf),
      laterChunkChars: view(this.#laterChunk),
      longestLaterChunkChars: this.#longestChunk,
    };
  }

  /** The plan made for the most recent stream. */
  get lastPlan(): FirstChunkPlan | undefined {
    return this.#lastPlan;
  }

  /** Plans the next reply's first chunk from what has been observed so far. */
  plan(): FirstChunkPlan {
    for (const commit of this.#beforePlan) commit();
    this.#lastPlan = planFirstChunk(this.#inputs(), this.options);
    return this.#lastPlan;
  }

  #inputs(): FirstChunkInputs {
    const o = this.options;
    return {
      llmCharsPerSec: this.#rate.lower(o.rateDeviations),
      speechMsPerChar: Math.min(this.#speech.lower(o.speechDeviations), this.#speech.mean * (1 - o.speechShortfall)),
      firstByteMs: this.#firstByte.mean,
      nextFirstByteMs: this.#firstByte.mean,
      realTimeFactor: this.#rtf.mean,
      nextChunkChars: Math.max(this.#laterChunk.upper(o.chunkDeviations), this.#longestChunk),
      sequentialProvider: o.sequentialProvider,
      marginMs: o.guardMs + o.firstByteDeviations * this.#firstByte.deviation,
    };
  }
}
