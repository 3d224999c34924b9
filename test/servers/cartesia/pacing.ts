/**
 * Streams one buffer of audio as frames, paced like a model generating faster than real time:
 * the first frame leaves firstByteDelayMs after the text arrived (or now, if that has passed), and
 * frame k at first + realTimeFactor × (audio already sent), each plus jitter. Knobs are read per
 * frame so `setOptions` takes effect mid-stream.
 */
import { wait } from './timing.js';

export interface PacingKnobs {
  firstByteDelayMs: number;
  realTimeFactor: number;
  frameBytes: number;
  jitterMs: number;
}

export interface FrameSink {
  /** Delivers one frame; returning false stops the stream after it. */
  frame(bytes: Buffer, sentBytes: number): boolean;
  /** Runs once when `faultAt` bytes have been sent; returning true stops the stream. */
  strike?(): Promise<boolean>;
}

export interface StreamPlan {
  audio: Buffer;
  /** Audio bytes per second of playback, for real-time pacing. */
  bytesPerSecond: number;
  /** Bytes sent before `sink.strike` runs (capped at the audio length); undefined = no fault. */
  faultAt?: number;
  /** `performance.now()` when the text arrived; model latency counts from here. Default: now. */
  arrivedAt?: number;
}

/** Resolves true when every byte was delivered, false when the sink or a fault stopped it. Rejects with AbortedWait on abort. */
export async function streamFrames(
  plan: StreamPlan,
  knobs: () => PacingKnobs,
  random: () => number,
  signal: AbortSignal,
  sink: FrameSink,
): Promise<boolean> {
  const { audio, bytesPerSecond } = plan;
  const faultAt =
    plan.faultAt === undefined ? undefined : Math.min(Math.max(0, plan.faultAt), audio.length);
  const jitter = (): number => knobs().jitterMs * random();
  const arrivedAt = plan.arrivedAt ?? performance.now();
  await wait(arrivedAt + knobs().firstByteDelayMs + jitter() - performance.now(), signal);
  const startedAt = performance.now();

  let sent = 0;
  let struck = faultAt === undefined;
  for (;;) {
    if (!struck && sent >= faultAt!) {
      struck = true;
      if (await sink.strike?.()) return false;
    }
    if (sent >= audio.length) return true;
    let end = Math.min(sent + Math.max(1, Math.floor(knobs().frameBytes)), audio.length);
    if (!struck && faultAt! < end) end = faultAt!;
    if (sent > 0) {
      const { realTimeFactor } = knobs();
      const dueMs = (realTimeFactor * sent * 1000) / bytesPerSecond + jitter();
      await wait(startedAt + dueMs - performance.now(), signal);
    }
    const keepGoing = sink.frame(audio.subarray(sent, end), end);
    sent = end;
    if (!keepGoing) return false;
  }
}
