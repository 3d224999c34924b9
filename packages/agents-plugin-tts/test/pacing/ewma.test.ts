import { describe, expect, it } from 'vitest';
import { EwmaEstimate } from '../../src/pacing/ewma.js';

describe('EwmaEstimate', () => {
  it('keeps the prior until the first sample, which replaces it', () => {
    const e = new EwmaEstimate(50, 5);
    expect([e.mean, e.deviation, e.count]).toEqual([50, 5, 0]);
    e.observe(200);
    expect([e.mean, e.deviation, e.count]).toEqual([200, 20, 1]);
  });

  it('averages its first samples plainly, then weighs new ones by the gain', () => {
    const e = new EwmaEstimate(0);
    for (const x of [100, 200, 300]) e.observe(x);
    expect(e.mean).toBeCloseTo(200, 9); // (100 + 200 + 300) / 3
    e.observe(400); // fourth sample: 1/4 = the gain
    expect(e.mean).toBeCloseTo(250, 9);
    e.observe(1250); // from now on the gain (0.25), not 1/5
    expect(e.mean).toBeCloseTo(250 + 0.25 * 1000, 9);
  });

  it('converges on a steady signal and its deviation shrinks', () => {
    const e = new EwmaEstimate(10);
    for (let i = 0; i < 40; i++) e.observe(100);
    expect(e.mean).toBeCloseTo(100, 6);
    expect(e.deviation).toBeLessThan(0.1);
  });

  it('tracks spread: alternating samples keep a deviation near their half-distance', () => {
    const e = new EwmaEstimate(0);
    for (let i = 0; i < 60; i++) e.observe(i % 2 ? 80 : 120);
    expect(e.mean).toBeGreaterThan(90);
    expect(e.mean).toBeLessThan(110);
    expect(e.deviation).toBeGreaterThan(15);
    expect(e.upper(2)).toBeGreaterThan(130);
    expect(e.lower(2)).toBeLessThan(70);
  });

  it('ignores non-finite samples and bounds the pessimistic low value', () => {
    const e = new EwmaEstimate(10);
    e.observe(Number.NaN);
    e.observe(Number.POSITIVE_INFINITY);
    expect(e.count).toBe(0);
    e.observe(100);
    expect(e.lower(100, 0.5)).toBe(50);
    expect(() => new EwmaEstimate(1, 0, { gain: 2 })).toThrow(RangeError);
  });
});
