/**
 * Whisper's log-mel front end as Smart Turn v3 reads it: 8 s of 16 kHz audio (left zero-padded,
 * or its last 8 s), normalised to zero mean and unit variance, a centred (reflect-padded) 400-point
 * STFT with a periodic Hann window every 160 samples, power onto 80 Slaney mel bands over
 * 0–8 kHz, log10 floored at 1e-10, clamped to (max − 8), then (x + 4) / 4. The last STFT frame
 * is dropped: 800 frames.
 *
 * The same arithmetic as `transformers`' WhisperFeatureExtractor(chunk_length=8) and pipecat's
 * numpy copy of it (`pipecat/audio/turn/smart_turn/_whisper_features.py`), checked against that
 * copy's output in test/turn/whisper-features.test.ts.
 */

export const SAMPLE_RATE = 16_000;
export const WINDOW_SAMPLES = 8 * SAMPLE_RATE;
export const N_MELS = 80;
export const N_FRAMES = 800;
const N_FFT = 400;
const HOP = 160;
const N_BINS = N_FFT / 2 + 1;
const MEL_FLOOR = 1e-10;
const VARIANCE_EPS = 1e-7;

/** The last 8 s of `samples` (16 kHz, [-1, 1]), zeros before them when shorter: what the model hears. */
export function modelWindow(samples: Float32Array): Float32Array {
  if (samples.length >= WINDOW_SAMPLES) return samples.slice(samples.length - WINDOW_SAMPLES);
  const out = new Float32Array(WINDOW_SAMPLES);
  out.set(samples, WINDOW_SAMPLES - samples.length);
  return out;
}

/** Features [80 mels × 800 frames], row-major (mel-major), as the model's input_features[0]. */
export function whisperLogMel(samples: Float32Array): Float32Array {
  const x = normalised(modelWindow(samples));
  const padded = reflectPad(x, N_FFT / 2);
  const frames = 1 + Math.floor((padded.length - N_FFT) / HOP);
  const used = frames - 1;
  const mel = new Float64Array(N_MELS * used);
  const frame = new Float64Array(N_FFT);
  const power = new Float64Array(N_BINS);
  // The left zero-padding (most of the window for a short turn) is one constant after the
  // normalisation: every frame inside it has frame 0's spectrum, so it is computed once.
  let constantRun = 1;
  while (constantRun < padded.length && padded[constantRun] === padded[0]) constantRun++;
  for (let f = 0; f < used; f++) {
    const start = f * HOP;
    if (f > 0 && start + N_FFT <= constantRun) {
      for (let m = 0; m < N_MELS; m++) mel[m * used + f] = mel[m * used]!;
      continue;
    }
    for (let i = 0; i < N_FFT; i++) frame[i] = padded[start + i]! * HANN[i]!;
    DFT.power(frame, power);
    for (let m = 0; m < N_MELS; m++) {
      const { first, weights } = MEL_FILTERS[m]!;
      let sum = 0;
      for (let j = 0; j < weights.length; j++) sum += weights[j]! * power[first + j]!;
      mel[m * used + f] = Math.log10(Math.max(MEL_FLOOR, sum));
    }
  }
  let max = Number.NEGATIVE_INFINITY;
  for (const v of mel) if (v > max) max = v;
  const out = new Float32Array(mel.length);
  for (let i = 0; i < mel.length; i++) out[i] = (Math.max(mel[i]!, max - 8) + 4) / 4;
  return out;
}

/** Zero mean, unit variance, in float32 as the reference does it on its float32 buffer. */
function normalised(x: Float32Array): Float32Array {
  let sum = 0;
  for (const v of x) sum += v;
  const mean = Math.fround(sum / x.length);
  let squares = 0;
  for (const v of x) squares += (v - mean) * (v - mean);
  const scale = Math.fround(Math.sqrt(Math.fround(squares / x.length) + VARIANCE_EPS));
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = (x[i]! - mean) / scale;
  return out;
}

/** numpy's mode="reflect": the edge sample is not repeated. */
function reflectPad(x: Float32Array, pad: number): Float64Array {
  const out = new Float64Array(x.length + 2 * pad);
  for (let i = 0; i < x.length; i++) out[pad + i] = x[i]!;
  for (let i = 1; i <= pad; i++) {
    out[pad - i] = x[i]!;
    out[pad + x.length - 1 + i] = x[x.length - 1 - i]!;
  }
  return out;
}

/** torch.hann_window(400) (periodic). */
const HANN = Float64Array.from({ length: N_FFT }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT));

function hzToMel(hz: number): number {
  return hz >= 1000 ? 15 + Math.log(hz / 1000) * (27 / Math.log(6.4)) : (3 * hz) / 200;
}

function melToHz(mel: number): number {
  return mel >= 15 ? 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15)) : (200 * mel) / 3;
}

/** Slaney-normalised triangles, each stored as its non-zero run of FFT-bin weights. */
const MEL_FILTERS: ReadonlyArray<{ first: number; weights: Float64Array }> = (() => {
  const melMax = hzToMel(SAMPLE_RATE / 2);
  const edges = Array.from({ length: N_MELS + 2 }, (_, i) => melToHz((melMax * i) / (N_MELS + 1)));
  const binHz = Array.from({ length: N_BINS }, (_, k) => (k * (SAMPLE_RATE / 2)) / (N_BINS - 1));
  return Array.from({ length: N_MELS }, (_, m) => {
    const [lo, mid, hi] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const norm = 2 / (hi - lo);
    const all = binHz.map((hz) => Math.max(0, Math.min((hz - lo) / (mid - lo), (hi - hz) / (hi - mid))) * norm);
    const first = Math.max(0, all.findIndex((w) => w > 0));
    const last = all.findLastIndex((w) => w > 0);
    return { first, weights: Float64Array.from(all.slice(first, Math.max(first, last + 1))) };
  });
})();

/**
 * The first 201 bins of a real 400-point DFT, in two steps (400 = 16 × 25, Cooley–Tukey's
 * "four-step" split): 25 DFTs of 16 points, twiddles, then 13 of the 25-point DFTs' outputs per
 * row — about 12 k multiply-adds a frame where the plain sum takes 80 k. Allocation-free.
 */
class RealDft400 {
  static readonly N1 = 16;
  static readonly N2 = 25;
  readonly #c1 = table(RealDft400.N1);
  readonly #s1 = sineTable(RealDft400.N1);
  readonly #c2 = table(RealDft400.N2);
  readonly #s2 = sineTable(RealDft400.N2);
  readonly #aRe = new Float64Array(N_FFT);
  readonly #aIm = new Float64Array(N_FFT);

  /** `power[k] = |X[k]|²` for k ≤ 200, of `x[0..400)`. */
  power(x: Float64Array, power: Float64Array): void {
    const { N1, N2 } = RealDft400;
    const aRe = this.#aRe;
    const aIm = this.#aIm;
    // Step 1: for each j2, a 16-point DFT over x[N2·j1 + j2], times the twiddle W400^(j2·k1).
    for (let j2 = 0; j2 < N2; j2++) {
      for (let k1 = 0; k1 < N1; k1++) {
        let re = 0;
        let im = 0;
        for (let j1 = 0; j1 < N1; j1++) {
          const v = x[N2 * j1 + j2]!;
          const t = (j1 * k1) % N1;
          re += v * this.#c1[t]!;
          im += v * this.#s1[t]!;
        }
        const tw = (j2 * k1) % N_FFT;
        const c = TWIDDLE_COS[tw]!;
        const s = TWIDDLE_SIN[tw]!;
        aRe[k1 * N2 + j2] = re * c - im * s;
        aIm[k1 * N2 + j2] = re * s + im * c;
      }
    }
    // Step 2: X[k1 + N1·k2] is the 25-point DFT over j2 of row k1.
    for (let k = 0; k < N_BINS; k++) {
      const k1 = k % N1;
      const k2 = (k - k1) / N1;
      let re = 0;
      let im = 0;
      for (let j2 = 0; j2 < N2; j2++) {
        const t = (j2 * k2) % N2;
        const c = this.#c2[t]!;
        const s = this.#s2[t]!;
        const ar = aRe[k1 * N2 + j2]!;
        const ai = aIm[k1 * N2 + j2]!;
        re += ar * c - ai * s;
        im += ar * s + ai * c;
      }
      power[k] = re * re + im * im;
    }
  }
}

function table(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, k) => Math.cos((-2 * Math.PI * k) / n));
}

function sineTable(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, k) => Math.sin((-2 * Math.PI * k) / n));
}

const TWIDDLE_COS = table(N_FFT);
const TWIDDLE_SIN = sineTable(N_FFT);
const DFT = new RealDft400();
