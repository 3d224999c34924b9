/**
 * A running mean and mean absolute deviation, updated like TCP's smoothed round-trip time
 * (RFC 6298): the deviation is what lets a planner ask for "mean plus two deviations" instead of
 * trusting the mean, and it is large while there are few samples.
 */
export interface EwmaOptions {
  /**
   * Weight of a new sample in the mean once there are enough samples; before that the n-th sample
   * weighs 1/n (a plain average), so a few turns already give a fair estimate. @defaultValue 0.25
   */
  gain: number;
  /** Weight of a new sample's distance from the mean in the deviation. @defaultValue 0.25 */
  deviationGain: number;
  /**
   * The first sample replaces the prior; its deviation starts at this fraction of it, because one
   * sample says nothing about spread. @defaultValue 0.1
   */
  firstDeviationFraction: number;
}

export const DEFAULT_EWMA_OPTIONS: EwmaOptions = {
  gain: 0.25,
  deviationGain: 0.25,
  firstDeviationFraction: 0.1,
};

export class EwmaEstimate {
  readonly #opts: EwmaOptions;
  #mean: number;
  #deviation: number;
  #count = 0;

  /** `prior` (and `priorDeviation`) stand until the first sample arrives. */
  constructor(prior: number, priorDeviation = 0, options: Partial<EwmaOptions> = {}) {
    this.#opts = { ...DEFAULT_EWMA_OPTIONS, ...options };
    for (const [name, value] of Object.entries(this.#opts)) {
      if (!(value >= 0 && value <= 1)) throw new RangeError(`EWMA ${name} must be within [0, 1], got ${value}`);
    }
    if (!Number.isFinite(prior) || !Number.isFinite(priorDeviation) || priorDeviation < 0) {
      throw new RangeError(`EWMA prior must be finite with a deviation >= 0, got ${prior} ± ${priorDeviation}`);
    }
    this.#mean = prior;
    this.#deviation = priorDeviation;
  }

  /** Adds one sample; non-finite samples are ignored (a division by a zero interval, say). */
  observe(sample: number): void {
    if (!Number.isFinite(sample)) return;
    if (this.#count === 0) {
      this.#mean = sample;
      this.#deviation = Math.abs(sample) * this.#opts.firstDeviationFraction;
    } else {
      // Deviation first, against the mean the sample was a surprise to (RFC 6298 order).
      const average = 1 / (this.#count + 1);
      const gain = Math.max(this.#opts.gain, average);
      const deviationGain = Math.max(this.#opts.deviationGain, average);
      this.#deviation += deviationGain * (Math.abs(sample - this.#mean) - this.#deviation);
      this.#mean += gain * (sample - this.#mean);
    }
    this.#count++;
  }

  get mean(): number {
    return this.#mean;
  }

  get deviation(): number {
    return this.#deviation;
  }

  /** Samples seen; 0 means the prior is still in force. */
  get count(): number {
    return this.#count;
  }

  /** Mean plus `k` deviations: a pessimistic value for something that hurts when large. */
  upper(k: number): number {
    return this.#mean + k * this.#deviation;
  }

  /** Mean minus `k` deviations, never below `floorFraction` of the mean: pessimistic for something that hurts when small. */
  lower(k: number, floorFraction = 0.5): number {
    return Math.max(this.#mean - k * this.#deviation, this.#mean * floorFraction);
  }
}
