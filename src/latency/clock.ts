/**
 * The project's clock. Every stamp the worker takes (turn signals, the latency budget, the ack,
 * the recordings) is on `now()`, which is `performance.now()`: the clock the TTS plugin's timeline
 * stamps its events with, so the two compare directly without conversion.
 */
/** Monotonic, sub-millisecond; the TTS timeline's clock. */
export const now = (): number => performance.now();

/**
 * The wall clock (LiveKit's events carry `Date.now()` times; logs join on epoch ms) minus `now()`.
 * performance.timeOrigin alone goes stale when the wall clock is stepped or slewed in a
 * long-lived worker, so the offset follows the wall clock once they part by more than
 * {@link EPOCH_RESYNC_MS}; until then it stays put, so a round trip through epoch ms is exact.
 */
let epochOffset = performance.timeOrigin;
export const EPOCH_RESYNC_MS = 20;
function currentEpochOffset(): number {
  const skew = Date.now() - (epochOffset + performance.now());
  if (Math.abs(skew) > EPOCH_RESYNC_MS) epochOffset += skew;
  return epochOffset;
}

/** A `now()` time as epoch ms. */
export const toEpoch = (ms: number): number => ms + currentEpochOffset();
/** Epoch ms (as in LiveKit's events) on the `now()` clock. */
export const fromEpoch = (epochMs: number): number => epochMs - currentEpochOffset();
