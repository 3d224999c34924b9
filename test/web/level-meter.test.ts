import { describe, expect, it } from 'vitest';
import { FLOOR_DB, displayLevel, rms, smoothLevel } from '../../web/level-meter.js';

const sine = (amplitude: number, length = 1024, period = 64) =>
  Float32Array.from({ length }, (_, i) => amplitude * Math.sin((2 * Math.PI * i) / period));

describe('level computation', () => {
  it('computes the RMS of time-domain samples', () => {
    expect(rms(new Float32Array(512))).toBe(0);
    expect(rms([])).toBe(0);
    expect(rms([0.5, -0.5, 0.5, -0.5])).toBeCloseTo(0.5, 10);
    expect(rms(sine(1))).toBeCloseTo(Math.SQRT1_2, 6);
    expect(rms(sine(0.1))).toBeCloseTo(0.1 * Math.SQRT1_2, 6);
  });

  it('shows RMS on a dB scale from the floor (0) to full scale (1)', () => {
    expect(FLOOR_DB).toBe(-60);
    expect(displayLevel(0)).toBe(0);
    expect(displayLevel(Number.NaN)).toBe(0);
    expect(displayLevel(0.0001)).toBe(0); // -80 dBFS: below the floor
    expect(displayLevel(0.001)).toBeCloseTo(0, 10); // -60 dBFS
    expect(displayLevel(10 ** (-30 / 20))).toBeCloseTo(0.5, 10); // -30 dBFS
    expect(displayLevel(1)).toBe(1);
    expect(displayLevel(2)).toBe(1);
    expect(displayLevel(0.1, -40)).toBeCloseTo(0.5, 10);
  });

  it('rises fast and falls slowly', () => {
    const up = smoothLevel(0, 1);
    const down = 1 - smoothLevel(1, 0);
    expect(up).toBeGreaterThan(down);
    expect(smoothLevel(0.5, 0.5)).toBe(0.5);
    expect(smoothLevel(0, 1, { attack: 1 })).toBe(1);
    expect(smoothLevel(0.00005, 0)).toBe(0);
  });

  it('shows speech within a few frames and lets it fall back after', () => {
    let level = 0;
    const frames: number[] = [];
    for (let frame = 0; frame < 60; frame++) {
      const samples = frame < 20 ? sine(0.3) : new Float32Array(1024);
      level = smoothLevel(level, displayLevel(rms(samples)));
      frames.push(level);
    }
    const speaking = displayLevel(rms(sine(0.3)));
    expect(speaking).toBeGreaterThan(0.7);
    expect(frames[3]).toBeGreaterThan(0.9 * speaking);
    expect(frames[21]).toBeGreaterThan(0.5 * speaking); // not cut off at once
    expect(frames[59]).toBeLessThan(0.01);
  });
});
