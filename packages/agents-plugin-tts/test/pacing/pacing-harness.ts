/**
 * Discrete-event runs of the paced chunker on a token trace (a stepped clock, no timers), and an
 * independent playout model to judge the result: when each released chunk would sound on a
 * provider with the given latency, speech rate and real-time factor, and the silences between.
 */
import { type Chunk, type ChunkerOptions, createChunker } from '../../src/chunking/index.js';
import { createPacedChunker } from '../../src/pacing/paced-chunker.js';
import { PacingEstimates, type PacingSettings } from '../../src/pacing/pacing-estimates.js';
import type { ProviderShape } from '../../src/pacing/pacing-model.js';
import type { PacingReport } from '../../src/pacing/pacer.js';

export interface TokenTrace {
  tokens: string[];
  /** Arrival of each token, ms (non-decreasing). */
  at: number[];
}

export interface Released {
  chunk: Chunk;
  at: number;
}

export interface PacedRun {
  released: Released[];
  report: PacingReport | undefined;
}

/** Feeds the trace with the clock stepped to each token, and to every check the pacer asks for in between. */
export function runPaced(
  trace: TokenTrace,
  shape: ProviderShape,
  pacing: PacingEstimates | PacingSettings,
  options: ChunkerOptions = {},
): PacedRun {
  let clock = 0;
  const estimates = pacing instanceof PacingEstimates ? pacing : new PacingEstimates(pacing);
  let report: PacingReport | undefined;
  const chunker = createPacedChunker(options, { shape, estimates, now: () => clock, onFirstChunk: (r) => (report = r) });
  const released: Released[] = [];
  const take = (chunks: Chunk[]) => released.push(...chunks.map((chunk) => ({ chunk, at: clock })));
  const checksUntil = (until: number) => {
    for (let guard = 0; guard < 10_000; guard++) {
      const next = chunker.nextCheck();
      if (next === undefined || next > until) return;
      clock = Math.max(clock, next);
      const before = released.length;
      take(chunker.check());
      if (released.length === before && chunker.nextCheck() === next) return;
    }
  };
  trace.tokens.forEach((token, i) => {
    checksUntil(trace.at[i]!);
    clock = trace.at[i]!;
    take(chunker.push(token));
  });
  take(chunker.end());
  return { released, report };
}

/** When the unpaced (eager) chunker sends its first chunk on the same trace. */
export function eagerFirstAt(trace: TokenTrace, options: ChunkerOptions = {}): number {
  const chunker = createChunker(options);
  for (let i = 0; i < trace.tokens.length; i++) if (chunker.push(trace.tokens[i]!).length) return trace.at[i]!;
  return trace.at[trace.at.length - 1] ?? 0;
}

export interface Physics {
  firstByteMs: number;
  speechMsPerChar: number;
  realTimeFactor: number;
  sequential: boolean;
}

/** Silences between released chunks on a provider with these physics (an independent model). */
export function playoutGaps(released: readonly Released[], p: Physics): number[] {
  const gaps: number[] = [];
  let end = -Infinity;
  let generated = -Infinity;
  for (const { chunk, at } of released) {
    const ready = p.sequential ? Math.max(at, generated) + p.firstByteMs : Math.max(at + p.firstByteMs, generated);
    const audio = chunk.text.length * p.speechMsPerChar;
    if (Number.isFinite(end) && ready > end) gaps.push(ready - end);
    end = Math.max(ready, end) + audio;
    generated = ready + p.realTimeFactor * audio;
  }
  return gaps;
}

/** Cuts inside the reply (chunks − 1). */
export const boundaries = (chunks: readonly { text: string }[]): number => Math.max(0, chunks.length - 1);
