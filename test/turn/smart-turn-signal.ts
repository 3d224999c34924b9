/**
 * The synthetic signal of test/turn/fixtures/smart-turn-reference.json, by the same formula as
 * scripts/peers/smart-turn-fixture.py: 1.2 s of a harmonic "vowel" with a 50 ms onset and a
 * 100 ms fade, a little deterministic noise under it, then 0.3 s of silence, at 16 kHz; the
 * features pipecat's front end made of it; and pipecat's model's answer for it on this machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VENV_PYTHON } from '../../bench/peers/python-driver.js';

export interface Reference {
  signalSamples: number;
  signalSum: number;
  shape: [number, number];
  min: number;
  max: number;
  mean: number;
  frames: Record<string, number[]>;
}

export const REFERENCE = JSON.parse(readFileSync(new URL('./fixtures/smart-turn-reference.json', import.meta.url), 'utf8')) as Reference;

export function referenceSignal(): Float32Array {
  const rate = 16_000;
  const n = Math.trunc(1.6 * rate);
  let state = 2463534242;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const noise = state / 4294967296 - 0.5;
    const env = Math.min(1, t / 0.05) * (t < 1.2 ? 1 : Math.max(0, 1 - (t - 1.2) / 0.1));
    let voice = 0;
    for (let h = 1; h <= 6; h++) voice += (0.3 / h) * Math.sin(2 * Math.PI * h * 150 * t + h);
    out[i] = env * voice + 0.01 * noise;
  }
  return out;
}

const FIXTURE_SCRIPT = fileURLToPath(new URL('../../scripts/peers/smart-turn-fixture.py', import.meta.url));
let pipecat: number | undefined;

/**
 * Pipecat's answer for {@link referenceSignal}, from its own pipeline in .venv-peers on this CPU:
 * onnxruntime's int8 kernels differ between CPUs by more than between its Python and Node builds
 * on one (scripts/peers/smart-turn-fixture.py), so no machine's answer is stored.
 */
export function pipecatProbability(): number {
  if (pipecat !== undefined) return pipecat;
  if (!existsSync(VENV_PYTHON)) throw new Error(`pipecat's answer needs the Python peers' venv: bash scripts/peers/ensure-venv.sh (no ${VENV_PYTHON})`);
  const out = execFileSync(VENV_PYTHON, [FIXTURE_SCRIPT, '--probability'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  const answer = JSON.parse(out.trim().split('\n').at(-1)!) as { probability: unknown };
  if (typeof answer.probability !== 'number' || !(answer.probability >= 0 && answer.probability <= 1)) throw new Error(`${FIXTURE_SCRIPT} --probability printed ${out}`);
  pipecat = answer.probability;
  return pipecat;
}
