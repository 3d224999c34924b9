import { describe, expect, it } from 'vitest';
import { TELEPHONE_RATE, linearToMulaw, mulawToLinear, telephoneBand } from './g711.js';

describe('G.711 µ-law', () => {
  it('matches the reference table at its landmarks', () => {
    expect(linearToMulaw(0)).toBe(0xff);
    expect(linearToMulaw(-1)).toBe(0x7f);
    expect(linearToMulaw(32767)).toBe(0x80);
    expect(linearToMulaw(-32768)).toBe(0x00);
    expect(mulawToLinear(0x80)).toBe(32124);
    expect(mulawToLinear(0x00)).toBe(-32124);
    expect(mulawToLinear(0xff)).toBe(0);
  });

  it('round-trips within the step of its segment (about 3% of the value)', () => {
    for (let s = -32000; s <= 32000; s += 97) {
      const back = mulawToLinear(linearToMulaw(s));
      expect(Math.abs(back - s)).toBeLessThanOrEqual(Math.max(16, Math.abs(s) * 0.035));
    }
  });

  it('cuts speech to 8 kHz: a 3 kHz tone passes, a 6 kHz one is gone', () => {
    const tone = (hz: number) => Int16Array.from({ length: 48_000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 48_000)));
    const rms = (x: Int16Array) => Math.sqrt(x.reduce((n, v) => n + v * v, 0) / x.length);
    const passed = telephoneBand(tone(3000), 48_000);
    expect(passed.length).toBeGreaterThan(TELEPHONE_RATE * 0.95);
    expect(rms(passed)).toBeGreaterThan(8000 / Math.SQRT2 * 0.8);
    expect(rms(telephoneBand(tone(6000), 48_000))).toBeLessThan(400);
  });
});
