/**
 * Real-time playout, simulated from arrival times: playback starts with the first frame and each
 * frame plays for its duration; when the next frame has not arrived by the time the audio so far
 * has played out, the listener hears silence until it does.
 */
export interface ArrivedFrame {
  /** Arrival, ms (any clock, the same for every frame). */
  at: number;
  /** Audio in the frame, ms. */
  ms: number;
}

export interface Playout {
  /** Gaps longer than the tolerance. */
  underruns: number;
  /** Total silence inside those gaps, ms. */
  underrunMs: number;
  /** Audio played, ms. */
  audioMs: number;
  /** Each gap: where in the audio it fell (ms of audio played before it) and how long it was. */
  gaps: Array<{ afterAudioMs: number; ms: number }>;
}

export function simulatePlayout(frames: readonly ArrivedFrame[], toleranceMs: number): Playout {
  let playedUntil = -Infinity;
  let underruns = 0;
  let underrunMs = 0;
  let audioMs = 0;
  const gaps: Playout['gaps'] = [];
  for (const frame of frames) {
    if (frame.ms <= 0) continue;
    if (playedUntil === -Infinity) {
      playedUntil = frame.at;
    } else if (frame.at > playedUntil) {
      const gap = frame.at - playedUntil;
      if (gap > toleranceMs) {
        underruns++;
        underrunMs += gap;
        gaps.push({ afterAudioMs: audioMs, ms: gap });
      }
      playedUntil = frame.at;
    }
    playedUntil += frame.ms;
    audioMs += frame.ms;
  }
  return { underruns, underrunMs, audioMs, gaps };
}

/** Nearest-rank percentile of unsorted values (p in [0, 100]). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}
