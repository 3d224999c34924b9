/**
 * How audio arrived, as a listener would hear it: time to first byte, gaps between frames, and the
 * holes playback would have if it started on the first byte (firstword has no prebuffer).
 */

export interface Arrival {
  /** ms on the run's clock. */
  at: number;
  /** Audio the frame carries, in ms. */
  audioMs: number;
}

export interface Delivery {
  frames: number;
  ttfbMs: number;
  audioMs: number;
  /** First to last frame. */
  spanMs: number;
  gapMedianMs: number;
  gapP90Ms: number;
  gapMaxMs: number;
  /** Playback from the first byte with no buffer: silences inserted mid-utterance. */
  holes: number;
  holeTotalMs: number;
  holeMaxMs: number;
  /** Buffer before starting playback that would have avoided every hole. */
  prebufferMs: number;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export function delivery(sentAt: number, arrivals: Arrival[]): Delivery | undefined {
  const first = arrivals[0];
  if (!first) return undefined;
  const gaps = arrivals.slice(1).map((a, i) => a.at - arrivals[i]!.at);
  let playedUntil = first.at + first.audioMs;
  let holes = 0;
  let holeTotalMs = 0;
  let holeMaxMs = 0;
  let audioBefore = 0;
  let prebufferMs = 0;
  arrivals.forEach((a, i) => {
    // Frame i is due when the audio before it has played: first.at + prebuffer + audioBefore.
    prebufferMs = Math.max(prebufferMs, a.at - first.at - audioBefore);
    audioBefore += a.audioMs;
    if (i === 0) return;
    if (a.at > playedUntil) {
      const hole = a.at - playedUntil;
      holes++;
      holeTotalMs += hole;
      holeMaxMs = Math.max(holeMaxMs, hole);
      playedUntil = a.at;
    }
    playedUntil += a.audioMs;
  });
  return {
    frames: arrivals.length,
    ttfbMs: first.at - sentAt,
    audioMs: audioBefore,
    spanMs: arrivals[arrivals.length - 1]!.at - first.at,
    gapMedianMs: percentile(gaps, 50),
    gapP90Ms: percentile(gaps, 90),
    gapMaxMs: gaps.length ? Math.max(...gaps) : 0,
    holes,
    holeTotalMs,
    holeMaxMs,
    prebufferMs,
  };
}

/** Audio ms of `bytes` of mono PCM16 at `sampleRate`. */
export function pcm16Ms(bytes: number, sampleRate: number): number {
  return (bytes / 2 / sampleRate) * 1000;
}
