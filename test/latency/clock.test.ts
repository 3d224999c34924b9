/** The timeline clock's epoch conversions (src/latency/clock.ts), which LiveKit's event times and the log's atEpochMs go through. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EPOCH_RESYNC_MS, fromEpoch, now, toEpoch } from '../../src/latency/clock.js';

describe('epoch conversions', () => {
  afterEach(() => vi.restoreAllMocks());

  it('round-trips a timeline time exactly, and stays within the resync threshold of the wall clock', () => {
    const t = now();
    expect(fromEpoch(toEpoch(t))).toBeCloseTo(t, 3); // epoch ms in a double: ~0.2 µs steps
    expect(Math.abs(toEpoch(now()) - Date.now())).toBeLessThanOrEqual(EPOCH_RESYNC_MS + 1);
  });

  it('follows the wall clock once it is stepped, so LiveKit times taken after the step still land on the right moment', () => {
    const realDateNow = Date.now.bind(Date);
    const stepMs = 3_600_000; // e.g. NTP stepping a long-running VM's clock by an hour
    vi.spyOn(Date, 'now').mockImplementation(() => realDateNow() + stepMs);
    const t = now();
    // A LiveKit event stamped with Date.now() at this moment is "now" on the timeline.
    expect(Math.abs(fromEpoch(Date.now()) - t)).toBeLessThanOrEqual(2);
    expect(Math.abs(toEpoch(t) - Date.now())).toBeLessThanOrEqual(2);
  });

  it('ignores wall-clock jitter below the resync threshold (an epoch round trip stays exact)', () => {
    const realDateNow = Date.now.bind(Date);
    const before = toEpoch(1000);
    vi.spyOn(Date, 'now').mockImplementation(() => realDateNow() + EPOCH_RESYNC_MS / 2);
    expect(toEpoch(1000)).toBe(before);
  });
});
