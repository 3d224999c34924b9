/**
 * When a received audio frame really arrived: for the worker's tap on the caller's voice
 * (src/latency/voice-arrival.ts), the room benchmark's ear and the room tests' caller. Reads lag arrival whenever the reading process's event loop is busy, and frames that
 * waited are then read in one burst, sharing a millisecond (so "the first quiet frame" could sort
 * before the last loud one). The subscriber plays frames out at real time, so frame j arrives at
 * least the lengths of frames i..j-1 after frame i: any later frame read promptly bounds frame i's
 * arrival from above. Looks `horizonMs` of frames ahead.
 */
export interface FrameRead {
  /** When the frame was read (any clock, ms). */
  at: number;
  /** Its length in ms. */
  ms: number;
}

export const ARRIVAL_HORIZON_MS = 1000;

export function arrivalOf(reads: readonly FrameRead[], index: number, horizonMs = ARRIVAL_HORIZON_MS): number {
  let best = reads[index]!.at;
  let after = 0;
  for (let j = index + 1; j < reads.length && after < horizonMs; j++) {
    after += reads[j - 1]!.ms;
    best = Math.min(best, reads[j]!.at - after);
  }
  return best;
}

export const settledArrivals = (reads: readonly FrameRead[], horizonMs = ARRIVAL_HORIZON_MS): number[] =>
  reads.map((_, i) => arrivalOf(reads, i, horizonMs));
