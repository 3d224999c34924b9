// @ts-check
/**
 * A voice level: a Web Audio `AnalyserNode` on an audio track, read once per animation frame,
 * its RMS shown on a `<meter>`. The page has two: the agent's voice (`#agent-level`) and the
 * user's own microphone (`#mic-level`, which also tells the turn timer when the user stopped
 * speaking).
 *
 * The meter element carries, for tests reading the page over CDP:
 * - `data-level`: the shown level, 0..1 (RMS on a -60..0 dBFS scale, fast attack, slow release);
 * - `data-rms`: the last frame's raw RMS, 0..1;
 * - `data-peak`: the highest level shown since the track was attached (so a test can tell that
 *   the agent was audible without sampling at the right frame);
 * - `data-frames`: frames analysed since attaching; `data-active`: whether a track is attached.
 *
 * The analyser is not connected to the speakers: the page plays the agent through the `<audio>`
 * element livekit-client attaches (Chrome also feeds remote WebRTC audio to Web Audio only
 * while such an element plays it), and the microphone is never played back.
 *
 * `rms`, `displayLevel` and `smoothLevel` are pure; `createLevelMeter` is the DOM wiring.
 */

export const FLOOR_DB = -60;

/**
 * Root mean square of time-domain samples in -1..1 (what `getFloatTimeDomainData` gives).
 *
 * @param {ArrayLike<number>} samples
 */
export function rms(samples) {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i];
    sum += sample * sample;
  }
  return Math.sqrt(sum / samples.length);
}

/**
 * An RMS value on a 0..1 scale that matches what people hear: `floorDb` and below is 0, full
 * scale (0 dBFS) is 1, linear in dB between.
 *
 * @param {number} value RMS, 0..1
 * @param {number} [floorDb]
 */
export function displayLevel(value, floorDb = FLOOR_DB) {
  if (!(value > 0)) return 0;
  const db = 20 * Math.log10(value);
  return Math.min(1, Math.max(0, (db - floorDb) / -floorDb));
}

/**
 * One step of a meter's ballistics: rises quickly, falls slowly.
 *
 * @param {number} previous
 * @param {number} next
 * @param {{ attack?: number, release?: number }} [options] fractions of the gap closed per frame
 */
export function smoothLevel(previous, next, { attack = 0.6, release = 0.12 } = {}) {
  const step = next > previous ? attack : release;
  const value = previous + (next - previous) * step;
  return value < 1e-4 ? 0 : value;
}

/**
 * @typedef {{
 *   prepare(): void,
 *   attach(track: MediaStreamTrack): void,
 *   detach(): void,
 *   readonly level: number,
 *   readonly peak: number,
 *   readonly attached: boolean,
 *   readonly contextState: AudioContextState | 'none',
 * }} LevelMeter
 */

/**
 * @param {HTMLMeterElement} meter
 * @param {Window & typeof globalThis} [win]
 * @param {{ onLevel?: (level: number) => void }} [hooks] `onLevel`: each analysed frame's own
 *   level (0..1, {@link displayLevel} of its RMS, before the meter's smoothing)
 * @returns {LevelMeter}
 */
export function createLevelMeter(meter, win = window, hooks = {}) {
  /** @type {AudioContext | null} */
  let context = null;
  /** @type {MediaStreamAudioSourceNode | null} */
  let source = null;
  /** @type {AnalyserNode | null} */
  let analyser = null;
  /** @type {Float32Array<ArrayBuffer> | null} */
  let samples = null;
  let frame = 0;
  let frames = 0;
  let level = 0;
  let peak = 0;

  const show = (raw = 0) => {
    meter.value = level;
    meter.dataset.level = level.toFixed(3);
    meter.dataset.rms = raw.toFixed(4);
    meter.dataset.peak = peak.toFixed(3);
    meter.dataset.frames = String(frames);
    meter.dataset.active = String(analyser !== null);
  };

  const tick = () => {
    if (!analyser || !samples) return;
    analyser.getFloatTimeDomainData(samples);
    const raw = rms(samples);
    const instant = displayLevel(raw);
    level = smoothLevel(level, instant);
    peak = Math.max(peak, level);
    frames += 1;
    show(raw);
    hooks.onLevel?.(instant);
    frame = win.requestAnimationFrame(tick);
  };

  const ensureContext = () => {
    if (!context) context = new win.AudioContext();
    // resumes when called from a click; elsewhere it stays suspended until the next click
    if (context.state === 'suspended') void context.resume().catch(() => {});
    return context;
  };

  show();
  return {
    /** Creates or resumes the audio context; call from a user gesture (autoplay policy). */
    prepare() {
      ensureContext();
    },

    attach(track) {
      this.detach();
      const audio = ensureContext();
      source = audio.createMediaStreamSource(new win.MediaStream([track]));
      analyser = audio.createAnalyser();
      analyser.fftSize = 1024;
      analyser.smoothingTimeConstant = 0;
      source.connect(analyser);
      samples = new Float32Array(analyser.fftSize);
      frames = 0;
      peak = 0;
      frame = win.requestAnimationFrame(tick);
      show();
    },

    detach() {
      win.cancelAnimationFrame(frame);
      source?.disconnect();
      source = null;
      analyser = null;
      samples = null;
      level = 0;
      show();
    },

    get level() {
      return level;
    },
    get peak() {
      return peak;
    },
    get attached() {
      return analyser !== null;
    },
    get contextState() {
      return context ? context.state : 'none';
    },
  };
}
