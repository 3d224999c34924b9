/**
 * Smart Turn in the framework's inference process (TURN_DETECTOR=combined): one model per worker
 * instead of one per job process, and its log-mel front end (23 ms of CPU for a 1.6 s turn, 64 ms
 * for the 8 s window) off the calls' event loops. The framework's process makes it with `new`,
 * calls `initialize` once and then `run` per request (agents' ipc/inference_proc_lazy_main), the
 * same contract as its own end-of-turn runner; jobs ask through ./smart-turn-executor.ts.
 *
 * That IPC is JSON, so the audio travels as base64 16 kHz s16le. It also turns a thrown error into
 * `{}`: a failure is answered as `{ error }`, so the job can say what went wrong.
 */
import { InferenceRunner, log } from '@livekit/agents';
import { z } from 'zod';
import { loadConfig } from '../config/index.js';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, type SmartTurnScore, pcmToFloat } from './smart-turn.js';

/** The runner's name in the framework's registry and in every request. */
export const SMART_TURN_METHOD = 'firstword_smart_turn';

export interface SmartTurnRequest {
  /** The caller's speech ending where the pause is: base64 of 16 kHz mono s16le PCM. */
  pcm: string;
}

export type SmartTurnAnswer = SmartTurnScore | { error: string };

/** What a job accepts from the inference process. */
export const SMART_TURN_ANSWER = z.union([
  z.object({ probability: z.number().min(0).max(1), featuresMs: z.number().nonnegative(), inferenceMs: z.number().nonnegative() }),
  z.object({ error: z.string() }),
]);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export default class SmartTurnRunner extends InferenceRunner<SmartTurnRequest, SmartTurnAnswer> {
  #model: SmartTurnModel | undefined;
  #unavailable = 'the Smart Turn runner is not initialized';

  /**
   * Loads the model the worker is configured with. This process is forked with the worker's
   * environment (and so its `.env`), not its config object: it reads the same variables. A model
   * that cannot load is one warning here, and every answer then says why.
   */
  async initialize(): Promise<void> {
    try {
      const modelPath = loadConfig(process.env, { mode: 'worker' }).turn.audioModelPath ?? DEFAULT_SMART_TURN_MODEL;
      this.#model = await SmartTurnModel.load(modelPath);
      log().debug({ modelPath }, 'Smart Turn loaded in the inference process');
    } catch (error) {
      this.#unavailable = (error as Error).message;
      log().warn({ error: this.#unavailable }, 'TURN_DETECTOR=combined: the Smart Turn model cannot load in the inference process; calls judge their pauses on the words and the silence without the voice');
    }
  }

  async run(data: SmartTurnRequest): Promise<SmartTurnAnswer> {
    if (!this.#model) return { error: this.#unavailable };
    const pcm = data?.pcm;
    if (typeof pcm !== 'string' || pcm.length === 0 || !BASE64.test(pcm)) return { error: 'a Smart Turn request needs `pcm`: base64 of 16 kHz s16le PCM' };
    const bytes = Buffer.from(pcm, 'base64');
    if (bytes.byteLength % 2 !== 0) return { error: `Smart Turn's PCM is 16-bit: ${bytes.byteLength} bytes is not a whole number of samples` };
    // A copy: Buffer.from may hand back a slice of the shared pool at an odd offset.
    const samples = new Int16Array(new Uint8Array(bytes).buffer);
    try {
      return await this.#model.score(pcmToFloat(samples));
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    await this.#model?.close();
    this.#model = undefined;
  }
}
