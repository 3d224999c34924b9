/**
 * Stale audio after a barge-in, told from the bench servers' tagged audio
 * (test/servers/audio-tag.ts): every sample of one text's audio has magnitude tagForText(text),
 * so a frame's magnitudes say which texts it came from — whichever library decoded it.
 */
import { tagForText } from '../../test/servers/audio-tag.js';
import type { ArrivedFrame } from '../playout.js';

export interface TaggedFrame extends ArrivedFrame {
  /** Distinct non-zero sample magnitudes, ascending (empty: silence). */
  tags: number[];
}

/** The distinct non-zero magnitudes of 16-bit samples (at most 16, as driver.py reports). */
export function frameTags(samples: Int16Array): number[] {
  const seen = new Set<number>();
  for (const s of samples) if (s !== 0) seen.add(Math.abs(s));
  return [...seen].sort((a, b) => a - b).slice(0, 16);
}

export interface Staleness {
  /** Frames carrying audio of the interrupted turn's texts, heard after the barge-in. */
  staleFrames: number;
  staleMs: number;
  /** Audible frames whose tags match no text of either turn: the attribution failed for them. */
  unknownFrames: number;
}

/**
 * Frames heard after a barge-in (the rest of the interrupted turn and all of the next one) that
 * carry audio of a text sent during the interrupted turn and not during the next one.
 */
export function staleAfterBargeIn(heard: readonly TaggedFrame[], interruptedTexts: readonly string[], nextTexts: readonly string[]): Staleness {
  const next = new Set(nextTexts.map(tagForText));
  const old = new Set(interruptedTexts.map(tagForText).filter((t) => !next.has(t)));
  let staleFrames = 0;
  let staleMs = 0;
  let unknownFrames = 0;
  for (const frame of heard) {
    if (frame.tags.some((t) => !old.has(t) && !next.has(t))) unknownFrames++;
    if (!frame.tags.some((t) => old.has(t))) continue;
    staleFrames++;
    staleMs += frame.ms;
  }
  return { staleFrames, staleMs, unknownFrames };
}
