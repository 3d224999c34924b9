/**
 * What counts as voice by level, the same on both ends of a call: the web page's turn timer ends
 * a turn at its microphone's last frame at or above `VOICE_LEVEL` (0.4) on its -60..0 dBFS meter
 * (web/turn-timer.js, web/level-meter.js), i.e. -36 dBFS RMS. The worker times the caller's end
 * of speech by the same gate, so the two figures start at the same kind of moment. (The worker's
 * own build holds only `src`, hence a copy; test/audio/level.test.ts keeps the two equal.)
 */
export const VOICE_GATE_DBFS = -36;

/** RMS of 16-bit PCM in dBFS (-Infinity for digital silence). */
export function rmsDbfs(samples: Int16Array): number {
  if (samples.length === 0) return Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const s of samples) sum += (s / 32768) * (s / 32768);
  return 10 * Math.log10(sum / samples.length);
}

export const isVoiced = (samples: Int16Array): boolean => rmsDbfs(samples) >= VOICE_GATE_DBFS;
