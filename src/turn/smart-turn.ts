/**
 * Smart Turn v3.2 (pipecat-ai's `smart-turn-v3.2-cpu.onnx`, BSD-2-Clause, 8.7 MB int8): the
 * probability that the caller has finished, heard from the last 8 s of their voice — pitch,
 * lengthening, a trailing "um" — in 23 languages including Korean and English.
 *
 * The file comes from the pipecat-ai wheel on PyPI at install time
 * (`bash scripts/peers/ensure-smart-turn.sh`), never from a hub while a call runs. Inference is
 * `InferenceSession.run`, which onnxruntime runs on its own thread: the event loop carries only
 * the log-mel front end (./whisper-features.ts), a few ms per pause.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { now } from '../latency/clock.js';
import { N_FRAMES, N_MELS, whisperLogMel } from './whisper-features.js';

/** Where ensure-smart-turn.sh puts the model: `models/` at the repository root. */
export const DEFAULT_SMART_TURN_MODEL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../models/smart-turn-v3.2-cpu.onnx');

/** The audio end-of-turn model as the turn decision uses it: one answer per pause. */
export interface AudioTurnModel {
  /** P(turn finished) for 16 kHz mono audio ending where the pause is, [-1, 1] floats. */
  predict(samples: Float32Array): Promise<number>;
  close(): Promise<void>;
}

/** One answer and what it cost: the front end on the event loop, the model on onnxruntime's thread. */
export interface SmartTurnScore {
  probability: number;
  featuresMs: number;
  inferenceMs: number;
}

export class SmartTurnModelMissingError extends Error {
  constructor(readonly modelPath: string) {
    super(`Smart Turn model not found at ${modelPath}: run \`bash scripts/peers/ensure-smart-turn.sh\` (it takes the file from the pipecat-ai wheel on PyPI) or set TURN_AUDIO_MODEL`);
    this.name = 'SmartTurnModelMissingError';
  }
}

import type { InferenceSession } from 'onnxruntime-node';

type Ort = typeof import('onnxruntime-node');

export class SmartTurnModel implements AudioTurnModel {
  readonly #ort: Ort;
  readonly #session: InferenceSession;

  private constructor(ort: Ort, session: InferenceSession) {
    this.#ort = ort;
    this.#session = session;
  }

  /** Loads the model; {@link SmartTurnModelMissingError} when the file is not there. */
  static async load(modelPath: string = DEFAULT_SMART_TURN_MODEL): Promise<SmartTurnModel> {
    if (!existsSync(modelPath)) throw new SmartTurnModelMissingError(modelPath);
    // Loaded on demand: a worker that never uses the audio model never maps onnxruntime for it.
    const ort = await import('onnxruntime-node');
    // One intra-op thread, as pipecat runs it: a call's pause must not take every core from the others.
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    return new SmartTurnModel(ort, session);
  }

  async predict(samples: Float32Array): Promise<number> {
    return (await this.score(samples)).probability;
  }

  async score(samples: Float32Array): Promise<SmartTurnScore> {
    const startedAt = now();
    const features = whisperLogMel(samples);
    const featuredAt = now();
    const input = new this.#ort.Tensor('float32', features, [1, N_MELS, N_FRAMES]);
    const outputs = await this.#session.run({ [this.#session.inputNames[0]!]: input });
    const probability = Number((outputs[this.#session.outputNames[0]!]!.data as Float32Array)[0]);
    if (!Number.isFinite(probability)) throw new Error(`Smart Turn returned ${probability}`);
    return { probability, featuresMs: featuredAt - startedAt, inferenceMs: now() - featuredAt };
  }

  async close(): Promise<void> {
    await this.#session.release();
  }
}

/** The model's floats as 16-bit PCM: exact for floats that came from PCM (`pcmToFloat`). */
export function floatToPcm(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return out;
}

/** 16-bit PCM as the model's floats. */
export function pcmToFloat(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}
