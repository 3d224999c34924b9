/** The timeline clock's epoch conversions (src/latency/clock.ts), which LiveKit's event times and the log's atEpochMs go through. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EPOCH_RESYNC_MS, fromEpoch, now, toEpoch } from '../../src/latency/clock.js';

describe('epoch conversions', () => {
  afterEach(() => vi.restoreAllMocks());

  it('round-trips a timeline time exactly, and stays within the resync threshold of the wall clock', () => {
    const t = now();
    expect(fromEpoch(toEpoch(t))).toBeCloseTo(t, 3); // epoch ms in a double: ~0.2 µs steps
    const wallBefore = Date.now();
    const epoch = toEpoch(now());
    const wallAfter = Date.now();
    expect(epoch).toBeGreaterThanOrEqual(wallBefore - EPOCH_RESYNC_MS - 1);
    expect(epoch).toBeLessThanOrEqual(wallAfter + EPOCH_RESYNC_MS + 1);
  });

  it('follows the wall clock once it is stepped, so LiveKit times taken after the step still land on the right moment', () => {
    const realDateNow = Date.now.bind(Date);
    const stepMs = 3_600_000; // e.g. NTP stepping a long-running VM's clock by an hour
    vi.spyOn(Date, 'now').mockImplementation(() => realDateNow() + stepMs);
    // A LiveKit event stamped with Date.now() lands on the timeline between the moments around
    // its stamp, and a timeline time between the wall times around it (a loaded machine may pause
    // between any two reads: only the bracket is exact; 1 ms is Date.now()'s resolution).
    const before = now();
    const stamp = Date.now();
    const after = now();
    expect(fromEpoch(stamp)).toBeGreaterThanOrEqual(before - 1);
    expect(fromEpoch(stamp)).toBeLessThanOrEqual(after + 1);
    const wallBefore = Date.now();
    const t = now();
    const wallAfter = Date.now();
    expect(toEpoch(t)).toBeGreaterThanOrEqual(wallBefore - 1);
    expect(toEpoch(t)).toBeLessThanOrEqual(wallAfter + 1);
  });

  it('ignores wall-clock jitter below the resync threshold (an epoch round trip stays exact)', () => {
    const realDateNow = Date.now.bind(Date);
    const before = toEpoch(1000);
    vi.spyOn(Date, 'now').mockImplementation(() => realDateNow() + EPOCH_RESYNC_MS / 2);
    expect(toEpoch(1000)).toBe(before);
  });
});
