/**
 * Word-timed transcripts of recorded human turns (`NAME.words.json` beside the recording, as
 * bench/turn/transcribe-words.py writes them): `[[word, startMs, endMs], ...]` from the file's
 * start. With them each stretch of speech gets the words actually said in it, so the transcript
 * detector judges every pause on the words heard before it — not on words shared out by length.
 */
import { existsSync, readFileSync } from 'node:fs';

/** A word and where it lies, as sample indexes of the turn (inclusive), like a stretch. */
export interface TimedWord {
  text: string;
  first: number;
  last: number;
}

export class TimedWordsError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'TimedWordsError';
  }
}

/** `NAME.words.json`'s words, in the file's time (ms), sorted by start; undefined when there is none. */
export function readTimedWords(base: string): Array<{ text: string; startMs: number; endMs: number }> | undefined {
  const file = `${base}.words.json`;
  if (!existsSync(file)) return undefined;
  return parseTimedWords(file, readFileSync(file, 'utf8'));
}

export function parseTimedWords(file: string, text: string): Array<{ text: string; startMs: number; endMs: number }> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TimedWordsError(file, `is not JSON (${(error as Error).message})`);
  }
  const isWord = (w: unknown): w is [string, number, number] =>
    Array.isArray(w) &&
    w.length === 3 &&
    typeof w[0] === 'string' &&
    w[0].trim() !== '' &&
    !/\s/.test(w[0].trim()) &&
    [w[1], w[2]].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) &&
    w[1] <= w[2];
  if (!Array.isArray(value) || value.length === 0 || !value.every(isWord)) {
    throw new TimedWordsError(file, 'must be a non-empty [[word, startMs, endMs], ...] with one word per entry and 0 ≤ start ≤ end');
  }
  return value.map(([word, startMs, endMs]) => ({ text: word.trim(), startMs, endMs })).sort((a, b) => a.startMs - b.startMs);
}

/**
 * Each stretch's words: a word belongs to the stretch its middle lies in, or — when the labels put
 * its middle in a pause or outside the speech — to the nearest one (the earlier on a tie).
 */
export function wordsByStretch(words: readonly TimedWord[], stretches: readonly { first: number; last: number }[]): string[][] {
  const pieces = stretches.map((): string[] => []);
  for (const word of words) {
    const middle = (word.first + word.last) / 2;
    let best = 0;
    let distance = Number.POSITIVE_INFINITY;
    stretches.forEach((s, i) => {
      const d = middle < s.first ? s.first - middle : middle > s.last ? middle - s.last : 0;
      if (d < distance) [best, distance] = [i, d];
    });
    pieces[best]?.push(word.text);
  }
  return pieces;
}
