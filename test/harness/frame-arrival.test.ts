/**
 * The arrival estimate the room benchmark's ear and the room tests' caller share
 * (test/helpers/frame-arrival.ts). The barge-in test once failed because the last loud frame and
 * the first quiet one were read in one burst and shared a millisecond.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalOf, settledArrivals } from '../helpers/frame-arrival.js';

const reads = (at: number[], ms = 20) => at.map((t) => ({ at: t, ms }));

/** Frames made every 20 ms; each read after the ones before it, late by whatever the event loop adds. */
const readTimes = fc
  .array(fc.tuple(fc.nat({ max: 300 }), fc.boolean()), { minLength: 2, maxLength: 300 })
  .map((delays) => {
    let latest = 0;
    return delays.map(([delay, stalled], i) => (latest = Math.max(latest, i * 20 + (stalled ? delay : delay % 3))));
  });

describe('frame arrival', () => {
  it('never puts a frame before it was made nor after it was read, and keeps frames in order', () => {
    fc.assert(
      fc.property(readTimes, (at) => {
        const settled = settledArrivals(reads(at));
        settled.forEach((t, i) => {
          expect(t).toBeGreaterThanOrEqual(i * 20);
          expect(t).toBeLessThanOrEqual(at[i]!);
          if (i > 0) expect(t).toBeGreaterThan(settled[i - 1]!);
        });
      }),
    );
  });

  it('spreads a burst back over the 20 ms it was made in', () => {
    // Three frames on time, then a 90 ms stall: frames 3–7 all read at 140.
    expect(settledArrivals(reads([0, 20, 40, 140, 140, 140, 140, 140, 160]))).toEqual([0, 20, 40, 60, 80, 100, 120, 140, 160]);
  });

  it('keeps a real gap in the stream (no frames for a second)', () => {
    expect(settledArrivals(reads([0, 20, 40, 1040, 1060]))).toEqual([0, 20, 40, 1040, 1060]);
  });

  it('looks only so far ahead: a frame read late is not pulled back by frames beyond the horizon', () => {
    const at = [500, ...Array.from({ length: 60 }, (_, i) => 520 + i * 20)];
    expect(arrivalOf(reads(at), 0)).toBe(500);
    const late = [900, ...Array.from({ length: 60 }, (_, i) => 920 + i * 20)];
    late[55] = 0; // would bound frame 0 far back, but lies 1100 ms ahead
    expect(arrivalOf(reads(late), 0, 1000)).toBe(900);
    expect(arrivalOf(reads(late), 0, 2000)).toBeLessThan(900);
  });
});
