import { describe, expect, it } from 'vitest';
import { VOICE_GATE_DBFS, isVoiced, rmsDbfs } from '../../src/audio/level.js';
import { FLOOR_DB, displayLevel, rms } from '../../web/level-meter.js';
import { VOICE_LEVEL } from '../../web/turn-timer.js';

const sine = (dbfs: number, n = 320) => {
  const amplitude = 10 ** (dbfs / 20) * Math.SQRT2 * 32768;
  return Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 200 * i) / 16000)));
};

describe("the worker's voice gate", () => {
  it("is the web page's: VOICE_LEVEL on its meter's dB scale", () => {
    expect(VOICE_GATE_DBFS).toBeCloseTo(FLOOR_DB * (1 - VOICE_LEVEL), 9);
  });

  it("decides voice frame by frame exactly as the page's meter would", () => {
    for (const db of [-50, -40, -37, -36.5, -35.5, -30, -12]) {
      const samples = sine(db);
      const pageLevel = displayLevel(rms(Array.from(samples, (s) => s / 32768)));
      expect(isVoiced(samples), `${db} dBFS`).toBe(pageLevel >= VOICE_LEVEL);
      expect(rmsDbfs(samples)).toBeCloseTo(db, 1);
    }
    expect(isVoiced(new Int16Array(320))).toBe(false);
  });
});
