/**
 * The turn-taking settings bench:turn compares side by side: the framework's defaults (what the
 * worker ran before), firstword's defaults (exactly what CONFIG_DEFAULTS ships, so the bench
 * measures the product), and an aggressive VAD-only setting. `--variant` adds sweep points.
 */
import { CONFIG_DEFAULTS } from '../../src/config/defaults.js';
import { type TurnDetectorChoice, turnDelays } from '../../src/config/index.js';

export interface BenchSetting {
  name: string;
  /** Silero's silence before end of speech (ms); the framework's default is 550. */
  silenceMs: number;
  /** Unset: the framework's turn handling (endpointing 500 / 3,000 ms, LLM-only preemptive). */
  turn?: { minDelayMs: number; maxDelayMs: number; preemptive: boolean; detector: TurnDetectorChoice; earlyFinal: boolean };
  /** `early`: the early ack judged by the transcript detector; `early-vad`: at every VAD end of speech. */
  ack: 'off' | 'early' | 'early-vad';
}

export const FRAMEWORK_DEFAULTS: BenchSetting = { name: 'framework-defaults', silenceMs: 550, ack: 'off' };

export const FIRSTWORD: BenchSetting = {
  name: 'firstword',
  silenceMs: CONFIG_DEFAULTS.turn.silenceMs,
  turn: {
    minDelayMs: CONFIG_DEFAULTS.turn.minDelayMs,
    maxDelayMs: CONFIG_DEFAULTS.turn.maxDelayMs,
    preemptive: CONFIG_DEFAULTS.turn.preemptive,
    detector: CONFIG_DEFAULTS.turn.detector,
    earlyFinal: CONFIG_DEFAULTS.turn.earlyFinal,
  },
  ack: 'early',
};

export const AGGRESSIVE_VAD: BenchSetting = {
  name: 'aggressive-vad',
  silenceMs: 200,
  turn: { minDelayMs: 100, maxDelayMs: 100, preemptive: true, detector: 'off', earlyFinal: true },
  ack: 'early-vad',
};

export const NAMED_SETTINGS: readonly BenchSetting[] = [FRAMEWORK_DEFAULTS, FIRSTWORD, AGGRESSIVE_VAD];

const DETECTORS: readonly TurnDetectorChoice[] = ['off', 'transcript', 'audio', 'combined'];
const ACKS: readonly BenchSetting['ack'][] = ['off', 'early', 'early-vad'];

/**
 * `silence=300,min=400,max=1500,detector=transcript,ack=early,preemptive=on,early-final=off`: firstword's
 * defaults with those keys changed, named after them.
 */
export function parseVariant(spec: string): BenchSetting {
  const base = FIRSTWORD.turn!;
  const setting: BenchSetting = { name: spec, silenceMs: FIRSTWORD.silenceMs, turn: { ...base }, ack: FIRSTWORD.ack };
  const parts = spec.split(',').filter(Boolean);
  const keys = new Set(parts.map((part) => part.split('=')[0]));
  // As in the worker: a detector starts from its own delays unless they are given.
  const detector = parts.map((part) => part.split('=')).find(([key]) => key === 'detector')?.[1];
  if (detector && DETECTORS.includes(detector as TurnDetectorChoice)) {
    const delays = turnDelays(detector as TurnDetectorChoice);
    if (!keys.has('min')) setting.turn!.minDelayMs = delays.minDelayMs;
    if (!keys.has('max')) setting.turn!.maxDelayMs = delays.maxDelayMs;
  }
  for (const part of parts) {
    const [key, raw] = part.split('=');
    const value = raw ?? '';
    const number = Number(value);
    const turn = setting.turn!;
    switch (key) {
      case 'silence':
        setting.silenceMs = wholeMs(key, number);
        break;
      case 'min':
        turn.minDelayMs = wholeMs(key, number);
        break;
      case 'max':
        turn.maxDelayMs = wholeMs(key, number);
        break;
      case 'preemptive':
        if (value !== 'on' && value !== 'off') throw new Error(`--variant preemptive must be on or off, not "${value}"`);
        turn.preemptive = value === 'on';
        break;
      case 'detector':
        if (!DETECTORS.includes(value as TurnDetectorChoice)) throw new Error(`--variant detector must be one of ${DETECTORS.join(', ')}`);
        turn.detector = value as TurnDetectorChoice;
        break;
      case 'early-final':
        if (value !== 'on' && value !== 'off') throw new Error(`--variant early-final must be on or off, not "${value}"`);
        turn.earlyFinal = value === 'on';
        break;
      case 'ack':
        if (!ACKS.includes(value as BenchSetting['ack'])) throw new Error(`--variant ack must be one of ${ACKS.join(', ')}`);
        setting.ack = value as BenchSetting['ack'];
        break;
      default:
        throw new Error(`--variant: unknown key "${key}" (silence, min, max, preemptive, detector, early-final, ack)`);
    }
  }
  return setting;
}

function wholeMs(key: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 10_000) throw new Error(`--variant ${key} must be whole milliseconds (0-10000)`);
  return value;
}
