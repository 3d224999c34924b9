/**
 * The job side of ./smart-turn-runner.ts: the worker registers the runner (only for
 * TURN_DETECTOR=combined, so other deployments load no Smart Turn), and each call's combined
 * detector asks it through the job's inference executor instead of loading its own model.
 */
import { InferenceRunner, type ipc, log } from '@livekit/agents';
import { extname } from 'node:path';
import type { TurnDetectorChoice } from '../config/index.js';
import { now } from '../latency/clock.js';
import { type AudioTurnModel, floatToPcm } from './smart-turn.js';
import { SMART_TURN_ANSWER, SMART_TURN_METHOD, type SmartTurnRequest } from './smart-turn-runner.js';
import { SAMPLE_RATE } from './whisper-features.js';

/**
 * In the worker's main process, before it starts (the framework forks its inference process only
 * when a runner is registered, and shares one with its own end-of-turn model when that is there).
 * @returns whether the runner is registered.
 */
export function registerSmartTurnRunner(detector: TurnDetectorChoice): boolean {
  if (detector !== 'combined') return false;
  if (InferenceRunner.registeredRunners[SMART_TURN_METHOD]) return true;
  // This file's own extension: `.ts` under tsx (dev, tests), `.js` built; the inference process is
  // forked with this process's loader flags, so it imports the runner the same way.
  const ext = extname(new URL(import.meta.url).pathname);
  InferenceRunner.registerRunner(SMART_TURN_METHOD, new URL(`./smart-turn-runner${ext}`, import.meta.url).toString());
  return true;
}

type Logger = Pick<ReturnType<typeof log>, 'debug' | 'warn'>;

/** Smart Turn as a call sees it in a worker: the worker's one model, answered per pause. */
export class ExecutorTurnModel implements AudioTurnModel {
  readonly #executor: Pick<ipc.InferenceExecutor, 'doInference'>;
  readonly #logger: () => Logger;
  #warned = false;

  constructor(executor: Pick<ipc.InferenceExecutor, 'doInference'>, logger: () => Logger = log) {
    this.#executor = executor;
    this.#logger = logger;
  }

  async predict(samples: Float32Array): Promise<number> {
    const request = smartTurnRequest(samples);
    const askedAt = now();
    let reply: unknown;
    try {
      reply = await this.#executor.doInference(SMART_TURN_METHOD, request);
    } catch (error) {
      throw this.#failed(`the inference process did not answer: ${(error as Error).message}`);
    }
    const parsed = SMART_TURN_ANSWER.safeParse(reply);
    if (!parsed.success) throw this.#failed(`the inference process answered something else than a Smart Turn score: ${parsed.error.message}`);
    const answer = parsed.data;
    if ('error' in answer) throw this.#failed(answer.error);
    // What each pause costs the worker: the front end and the model (in the inference process),
    // and the whole ask as the call waited for it (queueing and two IPC hops included).
    this.#logger().debug(
      { probability: answer.probability, speechMs: Math.round((samples.length / SAMPLE_RATE) * 1000), featuresMs: round(answer.featuresMs), inferenceMs: round(answer.inferenceMs), askMs: round(now() - askedAt) },
      'Smart Turn answered',
    );
    return answer.probability;
  }

  /** The model is the worker's: nothing to release per call. */
  async close(): Promise<void> {}

  /** One warning per call; the decision then goes on without the voice for that pause. */
  #failed(reason: string): Error {
    const message = `Smart Turn: ${reason}`;
    if (!this.#warned) this.#logger().warn({ error: message }, 'TURN_DETECTOR=combined: no answer from Smart Turn; this call judges such pauses on the words and the silence without the voice');
    else this.#logger().debug({ error: message }, 'Smart Turn gave no answer for this pause');
    this.#warned = true;
    return new Error(message);
  }
}

/** The speech as the runner takes it: JSON over IPC, so base64 16-bit PCM. */
export function smartTurnRequest(samples: Float32Array): SmartTurnRequest {
  const pcm = floatToPcm(samples);
  return { pcm: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64') };
}

const round = (ms: number): number => Math.round(ms * 10) / 10;
