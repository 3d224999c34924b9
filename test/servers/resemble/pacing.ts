/** Timing and randomness for streaming: abortable waits, a seeded PRNG, frame sizes and release times. */
import { seededRandom } from '../prng.js';
import { performance } from 'node:perf_hooks';

/**
 * Resolves true after `ms` (at least one macrotask, so concurrent streams interleave), or false as
 * soon as `signal` aborts — the timer is cleared then, so an aborted session leaves nothing behind.
 * `Infinity` waits only for the abort and holds no timer.
 */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
    const onAbort = () => {
      if (timer !== undefined) {
        clearTimeout(timer as NodeJS.Timeout);
        clearImmediate(timer as NodeJS.Immediate);
      }
      resolve(false);
    };
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (ms === Infinity) return;
    timer = ms >= 1 ? setTimeout(done, ms) : setImmediate(done);
  });
}

export function pauseUntil(time: number, signal: AbortSignal): Promise<boolean> {
  return pause(time - performance.now(), signal);
}

export { seededRandom };

/** A stream per request, so frame cuts do not depend on how requests interleave. */
export function randomForRequest(seed: number, index: number): () => number {
  return seededRandom(seed ^ Math.imul(index + 1, 0x9e3779b9));
}

/** `frameBytes`, or with probability `oddProbability` a random odd length below it. */
export function nextFrameLength(random: () => number, frameBytes: number, oddProbability: number): number {
  const base = Math.max(1, Math.floor(frameBytes));
  if (base < 2 || random() >= oddProbability) return base;
  return 1 + 2 * Math.floor(random() * Math.floor(base / 2));
}

/**
 * Delivery in bursts. `framesPerBurst`: groups of frames, group n not before `n × gapMs`.
 * `audioMs`: `audioMs` of audio (paced by rtf), then `gapMs` of nothing, again and again.
 */
export type BurstPattern = { framesPerBurst: number; gapMs: number } | { audioMs: number; gapMs: number };

export interface PacingPlan {
  firstByteDelayMs: number;
  realTimeFactor: number;
  burst?: BurstPattern;
}

/**
 * When frame `frameIndex` may leave, relative to the request's start: the first frame at
 * `firstByteDelayMs`, later ones once `rtf ×` the audio already sent has been "generated", and,
 * with bursts, not before its burst's slot (`burstIndex × gapMs`), or (by audio) one gap later
 * for every `audioMs` of audio already sent.
 */
export function releaseOffsetMs(plan: PacingPlan, frameIndex: number, audioMsSent: number): number {
  let offset = plan.realTimeFactor * audioMsSent;
  const burst = plan.burst;
  if (burst && 'audioMs' in burst) {
    offset += Math.floor(audioMsSent / Math.max(1, burst.audioMs)) * burst.gapMs;
  } else if (burst) {
    const burstIndex = Math.floor(frameIndex / Math.max(1, burst.framesPerBurst));
    offset = Math.max(offset, burstIndex * burst.gapMs);
  }
  return plan.firstByteDelayMs + offset;
}
